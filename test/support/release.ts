// Helpers for release e2e tests: building Releases (git-sourced, ConfigMaps in waves), reading them and
// their inventory, and waiting for a condition.
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release, ReleaseInventory } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { Fixture } from '../../src/render/git/testsupport.ts';
import { waitFor } from './wait.ts';

/** A Release of the repository's app/ on branch main, into its own namespace, synced every second. */
export function gitRelease(
  namespace: string,
  name: string,
  repo: Fixture,
  spec: Partial<Release['spec']> = {},
): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace },
    spec: {
      source: { git: { url: repo.url, ref: { branch: 'main' }, path: 'app' } },
      render: { targetNamespace: namespace },
      syncPolicy: { interval: '1s' },
      ...spec,
    },
  };
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

export function getInventory(client: KubeClient, namespace: string, name: string) {
  return client.get<ReleaseInventory>({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace, name });
}

export function condition(r: Release | undefined, type: string) {
  return r?.status?.conditions?.find((c) => c.type === type);
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

export async function mergePatch(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; namespace?: string; name: string },
  body: unknown,
) {
  return client.request({
    method: 'PATCH',
    path: await client.pathOf(ref),
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
