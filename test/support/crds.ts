// installCrds(kubeConfig): applies deploy/crds/*.yaml (convoy's five CRDs) with Server-Side Apply and
// waits until each is Established and listable, so e2e tests can create convoy objects right after.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { waitFor } from './wait.ts';

export const CRD_DIR = fileURLToPath(new URL('../../deploy/crds/', import.meta.url));

export async function readCrds(): Promise<KubeObject[]> {
  const files = (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(files.map(async (f) => parse(await readFile(join(CRD_DIR, f), 'utf8')) as KubeObject));
}

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** Applies every convoy CRD and waits for Established (and for discovery to serve the kinds). */
export async function installCrds(
  kubeConfig: KubeConfig,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const client = new KubeClient(kubeConfig);
  const crds = await readCrds();
  for (const crd of crds) await applyObject(client, crd, { fieldManager: 'convoy-test', force: true });
  const timeoutMs = options.timeoutMs ?? 60_000;
  for (const crd of crds) {
    const name = crd.metadata.name ?? '';
    await waitFor(
      `CRD ${name} Established`,
      async () => {
        const live = await client.get<CrdStatus>({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name,
        });
        return (
          live?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true
        );
      },
      { timeoutMs },
    );
    const spec = crd.spec as { group: string; versions: { name: string }[]; names: { kind: string } };
    const apiVersion = `${spec.group}/${spec.versions[0]?.name}`;
    await waitFor(`${spec.names.kind} in discovery`, () => client.resourceFor(apiVersion, spec.names.kind), {
      timeoutMs,
    });
    // Established does not mean listable: for a moment after it the apiserver answers a LIST of a new
    // kind with 500 "storage is (re)initializing" (its watch cache is still starting).
    await waitFor(
      `${spec.names.kind} listable`,
      async () => {
        await client.list({ apiVersion, kind: spec.names.kind });
        return true;
      },
      { timeoutMs },
    );
  }
}
