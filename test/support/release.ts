// Helpers for release e2e tests: building Releases (git-sourced, ConfigMaps in waves), reading them and
// their inventory, the states a test waits for (Ready, a Ready reason, a rollout state), and waiting; for
// tests of the observer without a controller-manager, what it would write (status, inventory, objects).
import { API_VERSION, FIELD_MANAGERS, LABEL_RELEASE } from '../../src/api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  Release,
  ReleaseInventory,
  ReleaseSpec,
  RolloutState,
  RolloutStatus,
} from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { Fixture } from '../../src/render/git/testsupport.ts';
import { type PodStage, TEST_STAGE } from '../../src/testenv/index.ts';
import { type WaitOptions, waitFor } from './wait.ts';

/** A Release of the given spec (beside apiVersion, kind and metadata nothing is added). */
export function releaseOf(namespace: string, name: string, spec: Release['spec']): Release {
  return { apiVersion: API_VERSION, kind: 'Release', metadata: { name, namespace }, spec };
}

/** A Release of the repository's app/ on branch main, into its own namespace, synced every second. */
export function gitRelease(
  namespace: string,
  name: string,
  repo: Fixture,
  spec: Partial<Release['spec']> = {},
): Release {
  return releaseOf(namespace, name, {
    source: { git: { url: repo.url, ref: { branch: 'main' }, path: 'app' } },
    render: { targetNamespace: namespace },
    syncPolicy: { interval: '1s' },
    ...spec,
  });
}

export function releaseRef(namespace: string, name: string) {
  return { apiVersion: API_VERSION, kind: 'Release', namespace, name };
}

export function getRelease(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<Release | undefined> {
  return client.get<Release>(releaseRef(namespace, name));
}

/** Deletes Release namespace/name and waits until it is gone, its finalizer done (60 s unless `opts` say). */
export async function deleteReleaseAndWait(
  client: KubeClient,
  namespace: string,
  name: string,
  opts: WaitOptions = { timeoutMs: 60_000 },
): Promise<void> {
  await client.delete(releaseRef(namespace, name));
  await waitFor(
    `Release ${namespace}/${name} gone`,
    async () => (await getRelease(client, namespace, name)) === undefined,
    opts,
  );
}

export function getInventory(client: KubeClient, namespace: string, name: string) {
  return client.get<ReleaseInventory>({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace, name });
}

export function condition(r: Release | undefined, type: string) {
  return r?.status?.conditions?.find((c) => c.type === type);
}

/** Ready=True and, when given, the last successful sync was of this commit and/or this render. */
export const readyWith =
  (last: { readonly revision?: string; readonly renderRef?: string } = {}) =>
  (r: Release): boolean =>
    (last.revision === undefined || r.status?.lastSuccessful?.revision === last.revision) &&
    (last.renderRef === undefined || r.status?.lastSuccessful?.renderRef === last.renderRef) &&
    condition(r, 'Ready')?.status === 'True';

/** Ready=True. */
export const isReady = readyWith();

/** The Ready condition has this reason (whatever its status). */
export const readyReason =
  (reason: string) =>
  (r: Release): boolean =>
    condition(r, 'Ready')?.reason === reason;

/** status.rollout is in this state (whichever render). */
export const rolloutIs =
  (state: RolloutState) =>
  (r: Release): boolean =>
    r.status?.rollout?.state === state;

/** Which field managers own an annotation, and how they wrote it (Apply for the API, Update for a patch). */
export function annotationOwners(
  r: Release | undefined,
  key: string,
): { manager?: string; operation?: string }[] {
  return (r?.metadata.managedFields ?? [])
    .filter((m) => JSON.stringify(m.fieldsV1 ?? {}).includes(`"f:${key}"`))
    .map((m) => ({ manager: m.manager, operation: m.operation }));
}

/** Waits until the Release's Ready condition satisfies `ok`; returns the Release. */
export function waitForReady(
  client: KubeClient,
  namespace: string,
  name: string,
  ok: (r: Release) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<Release> {
  return waitFor(
    `${namespace}/${name}: ${what}`,
    async () => {
      const r = await getRelease(client, namespace, name);
      return r !== undefined && ok(r) ? r : false;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/** Waits until the Release's Ready condition has this reason (whatever its status); returns the Release. */
export function waitForReason(
  client: KubeClient,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs?: number,
): Promise<Release> {
  return waitForReady(client, namespace, name, readyReason(reason), reason, timeoutMs);
}

export async function mergePatch(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; namespace?: string; name: string },
  body: unknown,
  /** e.g. 'status': patch that subresource (a test playing a controller that is not running). */
  subresource?: string,
) {
  return client.request({
    method: 'PATCH',
    path: await client.pathOf(ref, subresource),
    contentType: 'application/merge-patch+json',
    body,
  });
}

export const cm = (name: string, data: Record<string, string>, annotations: Record<string, string> = {}) =>
  `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
data: ${JSON.stringify(data)}
`;

export const wave = (n: number) => ({ 'convoy.kumodo.io/sync-wave': String(n) });

// --- playing the controller-manager (tests of the observer without one) ------------------------------

/** A second-precision timestamp, as the controller writes them. */
export const nowStamp = () => `${new Date().toISOString().slice(0, 19)}Z`;

/**
 * Writes what the controller-manager would for an inline Release: its spec, then a status saying
 * `renderRef` was applied, both as the controller's field manager.
 */
export async function applyAppliedRelease(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: Partial<ReleaseSpec>,
  renderRef: string,
  /** status.rollout as the controller would have written it (a Failed rollout, say). */
  rollout?: RolloutStatus,
): Promise<void> {
  const owner = { fieldManager: FIELD_MANAGERS.controller, force: true };
  await applyObject(
    client,
    releaseOf(namespace, name, { source: { inline: { manifests: '# test' } }, ...spec }),
    owner,
  );
  await applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name, namespace },
      status: {
        lastAttempted: { renderRef, revision: 'r1', time: nowStamp(), applied: true },
        ...(rollout === undefined ? {} : { rollout }),
      },
    },
    { ...owner, subresource: 'status' },
  );
}

/** Writes a ReleaseInventory's entries (and hooks, where given) as the controller's field manager. */
export function applyControllerInventory(
  client: KubeClient,
  namespace: string,
  name: string,
  entries: readonly InventoryEntry[],
  hooks?: readonly InventoryHook[],
) {
  return applyInventoryAs(FIELD_MANAGERS.controller, client, namespace, name, entries, hooks);
}

/**
 * Writes a ReleaseInventory's entries (and hooks) as `fieldManager`: with the observer's managers, only
 * the fields each owns (docs/design.md#field-ownership), keyed as the controller's entries are.
 */
export function applyInventoryAs(
  fieldManager: string,
  client: KubeClient,
  namespace: string,
  name: string,
  entries: readonly Partial<InventoryEntry>[],
  hooks?: readonly InventoryHook[],
) {
  return applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name, namespace },
      entries,
      ...(hooks === undefined ? {} : { hooks }),
    },
    { fieldManager, force: true },
  );
}

export interface DeployedDeploymentOptions {
  /** The Release it belongs to (its namespace's), named by its label. */
  readonly release: string;
  readonly replicas: number;
  /** What its pods do on the control plane's kwok nodes (default: Ready at once). */
  readonly stage?: PodStage;
  readonly nodeSelector?: Readonly<Record<string, string>>;
}

/** Applies a Deployment of a no-op image as the controller's deployer would, labelled for its Release. */
export function applyDeployedDeployment(
  client: KubeClient,
  namespace: string,
  name: string,
  o: DeployedDeploymentOptions,
) {
  const stage = o.stage ?? TEST_STAGE.none;
  return applyObject(
    client,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels: { [LABEL_RELEASE]: `${namespace}.${o.release}` } },
      spec: {
        replicas: o.replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name, ...stage.labels }, annotations: stage.annotations },
          spec: {
            ...(o.nodeSelector === undefined ? {} : { nodeSelector: o.nodeSelector }),
            containers: [{ name: 'main', image: 'registry.invalid/noop:1' }],
          },
        },
      },
    },
    { fieldManager: FIELD_MANAGERS.deployer, force: true },
  );
}

const SYNCED_REF = `sha256:${'a'.repeat(64)}`;

/** What the controller writes for the i-th of many Releases, synced and Succeeded (list tests, bench:ui). */
export function syncedStatus(i: number, message = 'applied'): Release['status'] {
  const revision = `inline:${String(i).padStart(12, '0')}`;
  const at = '2030-01-01T00:00:00Z';
  return {
    observedGeneration: 1,
    currentRender: { renderRef: SYNCED_REF, revision },
    revision,
    rollout: { state: 'Succeeded', renderRef: SYNCED_REF, startedAt: at },
    conditions: [{ type: 'Ready', status: 'True', reason: 'Synced', message: '', lastTransitionTime: at }],
    message,
  };
}

/**
 * A Release of one ConfigMap per name, each with syncedStatus written through the status subresource as
 * the controller would (no convoy process needed); `writers` requests at once.
 */
export async function createSyncedReleases(
  client: KubeClient,
  namespace: string,
  names: readonly string[],
  writers: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < names.length) {
        const i = next++;
        const name = names[i] ?? '';
        const created = await client.create<Release>(
          releaseOf(namespace, name, {
            source: { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' } },
          }),
        );
        const ref = { apiVersion: API_VERSION, kind: 'Release', namespace, name };
        await client.request({
          method: 'PUT',
          path: `${await client.pathOf(ref)}/status`,
          body: { ...created, status: syncedStatus(i) },
        });
      }
    }),
  );
}
