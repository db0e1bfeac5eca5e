// The writes convoy's two processes send while they roll out one Release of ConfigMaps, as bodies with
// the shapes and sizes convoy writes (traced from both processes: keys, renderRefs, messages,
// conditions), in the order docs/design.md#writes-per-release lists them. `npm run bench:requests`
// sends each kind alone to price it; `npm run bench:replay` sends them all, Release by Release, to
// find what they cost together. One definition for both, so the two benches price the same requests.
import { API_VERSION, FIELD_MANAGERS, FINALIZER, LABEL_RELEASE } from '../src/api/constants.ts';
import type { ObjectHeader } from '../src/api/types.ts';
import { applyObject } from '../src/kube/apply.ts';
import type { KubeClient } from '../src/kube/client.ts';
import { releaseLabelValue } from '../src/store/layout.ts';
import { configMapManifests } from './fixtures.ts';

export const REF = `sha256:${'a599b11bd3ef4ad917054a73a4501ee8f89dce9370b0385ccc3f81c386e7a3ff'}`;
export const REVISION = 'inline:e2dd58a81a1e';

/** One Release of the bench: its namespace, name, and the index its ConfigMaps are numbered by. */
export interface BenchTarget {
  readonly namespace: string;
  readonly name: string;
  readonly index: number;
  readonly objects: number;
}

const now = () => `${new Date().toISOString().slice(0, 19)}Z`;
const meta = (t: BenchTarget) => ({ name: t.name, namespace: t.namespace });
const as = (o: object) => o as unknown as ObjectHeader;
const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  observedGeneration: 1,
  lastTransitionTime: now(),
});
const key = (t: BenchTarget, j: number) => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: t.namespace,
  name: `r${t.index}-o${j}`,
});
const keys = <T>(t: BenchTarget, f: (k: ReturnType<typeof key>, j: number) => T) =>
  Array.from({ length: t.objects }, (_, j) => f(key(t, j), j));

/** ConfigMap `j` of the Release as convoy applies it: the manifest plus the Release label. */
export const configMap = (t: BenchTarget, j: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: `r${t.index}-o${j}`,
    namespace: t.namespace,
    labels: { [LABEL_RELEASE]: releaseLabelValue(t.namespace, t.name) },
  },
  data: { i: String(j) },
});

const controllerStatus = (t: BenchTarget, rollout: string) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: meta(t),
  status: {
    observedGeneration: 1,
    conditions: [
      condition('Ready', 'True', 'Synced', `applied revision ${REVISION} (${REF.slice(0, 19)}…)`),
      condition('Stalled', 'False', 'NotStalled', ''),
    ],
    currentRender: { renderRef: REF, revision: REVISION },
    history: [{ appliedAt: now(), renderRef: REF, revision: REVISION }],
    lastAttempted: { applied: true, renderRef: REF, revision: REVISION, time: now() },
    rollout: { state: rollout, renderRef: REF, startedAt: now() },
    ...(rollout === 'Succeeded'
      ? {
          lastSuccessful: { renderRef: REF, revision: REVISION, time: now() },
          lastHealthy: { renderRef: REF, revision: REVISION, time: now() },
        }
      : {}),
  },
});

/** Sends convoy's requests for one Release through `client`: each returns the request's promise. */
export function releaseRequests(client: KubeClient, t: BenchTarget) {
  const apply = (o: object, fieldManager: string, extra: { dryRun?: boolean; subresource?: 'status' } = {}) =>
    applyObject(client, as(o), { fieldManager, force: true, ...extra });
  return {
    finalizer: () =>
      apply(
        { apiVersion: API_VERSION, kind: 'Release', metadata: { ...meta(t), finalizers: [FINALIZER] } },
        FIELD_MANAGERS.controller,
      ),
    renderSecret: () =>
      client.create(
        as({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${t.name}-render`, namespace: t.namespace },
          data: { render: Buffer.from(configMapManifests(t.index, t.objects)).toString('base64') },
        }),
      ),
    notePending: () =>
      apply(
        {
          apiVersion: API_VERSION,
          kind: 'ReleaseInventory',
          metadata: meta(t),
          pending: keys(t, (k) => ({ ...k, wave: 0, renderRef: REF })),
        },
        FIELD_MANAGERS.controller,
      ),
    dryRun: (j: number) => apply(configMap(t, j), FIELD_MANAGERS.deployer, { dryRun: true }),
    applyObject: (j: number) => apply(configMap(t, j), FIELD_MANAGERS.deployer),
    record: () =>
      apply(
        {
          apiVersion: API_VERSION,
          kind: 'ReleaseInventory',
          metadata: meta(t),
          entries: keys(t, (k, j) => ({
            ...k,
            wave: 0,
            renderRef: REF,
            appliedResourceVersion: String(1000 + j),
          })),
        },
        FIELD_MANAGERS.controller,
      ),
    statusApplied: () =>
      apply(controllerStatus(t, 'Progressing'), FIELD_MANAGERS.controller, { subresource: 'status' }),
    event: () =>
      client.create(
        as({
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${t.name}.applied`, namespace: t.namespace },
          involvedObject: { apiVersion: API_VERSION, kind: 'Release', ...meta(t) },
          reason: 'Applied',
          message: `applied revision ${REVISION}`,
          type: 'Normal',
        }),
      ),
    health: () =>
      apply(
        {
          apiVersion: API_VERSION,
          kind: 'ReleaseInventory',
          metadata: meta(t),
          entries: keys(t, (k) => ({
            ...k,
            state: 'Healthy',
            assessedRenderRef: REF,
            rule: 'default/standard-conditions',
            message:
              'no rule for this kind; passes the generic status checks (rule default/standard-conditions)',
          })),
        },
        FIELD_MANAGERS.healthInventory,
      ),
    statusHealthy: () =>
      apply(
        {
          apiVersion: API_VERSION,
          kind: 'Release',
          metadata: meta(t),
          status: {
            conditions: [
              condition('Healthy', 'True', 'Healthy', `${t.objects} objects healthy`),
              condition('Drifted', 'False', 'InSync', `${t.objects} of ${t.objects} objects in sync`),
            ],
            healthSummary: { healthy: t.objects, progressing: 0, degraded: 0, unknown: 0, total: t.objects },
            driftSummary: { drifted: 0, total: t.objects },
          },
        },
        FIELD_MANAGERS.observer,
        { subresource: 'status' },
      ),
    statusSucceeded: () =>
      apply(controllerStatus(t, 'Succeeded'), FIELD_MANAGERS.controller, { subresource: 'status' }),
  };
}
