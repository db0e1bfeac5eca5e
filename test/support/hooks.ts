// Helpers of the lifecycle-hook e2e tests: inline renders built from hook Jobs, ConfigMaps and
// Deployments, and reading hook state from the inventory and Jobs. The system itself comes from
// system.ts, the event recorder from recorder.ts.
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type { Release, ReleaseSpec } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { TEST_LABEL_FAIL, TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import type { Seen } from './recorder.ts';
import { getInventory, releaseRef } from './release.ts';

export type Manifest = Record<string, unknown>;

export interface HookJobOptions {
  readonly fail?: boolean;
  /** The Job's pod never becomes Ready and never completes. */
  readonly hang?: boolean;
  readonly timeout?: string;
  readonly policy?: string;
  /** Overrides the convoy.kumodo.io/hook annotation (bad input). */
  readonly phase?: string;
}

/** A hook Job: backoffLimit 0, so one failed pod fails it. */
export function hookJob(name: string, phase: string, opts: HookJobOptions = {}): Manifest {
  const annotations: Record<string, string> = { 'convoy.kumodo.io/hook': opts.phase ?? phase };
  if (opts.timeout !== undefined) annotations['convoy.kumodo.io/hook-timeout'] = opts.timeout;
  if (opts.policy !== undefined) annotations['convoy.kumodo.io/hook-delete-policy'] = opts.policy;
  const labels: Record<string, string> = { app: name };
  if (opts.fail) labels[TEST_LABEL_FAIL] = 'true';
  if (opts.hang) labels[TEST_LABEL_NEVER_READY] = 'true';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, annotations },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.invalid/hook:1' }] },
      },
    },
  };
}

export function configMap(name: string, wave = 0, data: Record<string, string> = { v: '1' }): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, annotations: { 'convoy.kumodo.io/sync-wave': String(wave) } },
    data,
  };
}

export function deployment(
  name: string,
  wave = 0,
  annotations: Record<string, string> = {},
  podLabels: Record<string, string> = {},
): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: { 'convoy.kumodo.io/sync-wave': String(wave), ...annotations } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, ...podLabels } },
        spec: { containers: [{ name: 'main', image: 'registry.invalid/web:1' }] },
      },
    },
  };
}

/** Multi-document YAML (JSON documents are YAML). */
export const manifests = (objs: readonly Manifest[]): string =>
  objs.map((o) => JSON.stringify(o)).join('\n---\n');

export function inlineRelease(
  ns: string,
  name: string,
  objs: readonly Manifest[],
  spec: Partial<ReleaseSpec> = {},
): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { inline: { manifests: manifests(objs) } },
      render: { targetNamespace: ns },
      syncPolicy: { interval: '3s' },
      ...spec,
    },
  };
}

// --- reading ---------------------------------------------------------------------------------------

export const ready = (r: Release | undefined) => r?.status?.conditions?.find((c) => c.type === 'Ready');

export async function hookEntry(client: KubeClient, ns: string, name: string, hook: string) {
  return (await getInventory(client, ns, name))?.hooks?.find((h) => h.name === hook);
}

export interface JobLike extends KubeObject {
  metadata: KubeObject['metadata'] & { name: string; uid?: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}

export const jobDone = (j: JobLike | undefined, type: 'Complete' | 'Failed') =>
  j?.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

/** A recorder event of the Job `name` once it has completed. */
export const jobCompleted = (name: string) => (s: Seen) =>
  s.name === name && jobDone(s.object as JobLike, 'Complete');

/** Sets annotations the way /sync does (merge patch under convoy-api). */
export async function annotate(
  client: KubeClient,
  ns: string,
  name: string,
  annotations: Record<string, string>,
) {
  await client.request({
    method: 'PATCH',
    path: await client.pathOf(releaseRef(ns, name)),
    contentType: 'application/merge-patch+json',
    body: { metadata: { annotations } },
    query: { fieldManager: FIELD_MANAGERS.api },
  });
}
