// What `convoy dev` installs before starting convoy's processes, as `kubectl apply -k deploy/` would on a
// real cluster: the CRDs (waiting until the API serves them), the default GlobalHealthRuleSet, the rule library and the
// namespace of the shard Leases. Everything as the admin, with Server-Side Apply.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { KubeObject } from '../api/types.ts';
import { waitEstablished } from '../controller/release/act/deployer.ts';
import { applyObject } from '../kube/apply.ts';
import type { KubeClient } from '../kube/client.ts';
import { nameOf } from '../lib/names.ts';
import { installDefaultRules, installRuleLibrary } from '../observer/health/loop/default-rules.ts';

export const DEPLOY_DIR = fileURLToPath(new URL('../../deploy/', import.meta.url));
const FIELD_MANAGER = 'convoy-install';

interface CrdLike extends KubeObject {
  spec: { group: string; versions: { name: string }[]; names: { kind: string } };
}

export async function readCrds(): Promise<CrdLike[]> {
  const dir = join(DEPLOY_DIR, 'crds');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(files.map(async (f) => parse(await readFile(join(dir, f), 'utf8')) as CrdLike));
}

/** Polls `check` every 200 ms until it is true; throws naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function installConvoy(client: KubeClient, leaseNamespace: string, timeoutMs = 60_000) {
  const crds = await readCrds();
  for (const crd of crds) await applyObject(client, crd, { fieldManager: FIELD_MANAGER, force: true });
  for (const crd of crds) {
    const name = nameOf(crd);
    await waitEstablished(client, name, timeoutMs);
    const apiVersion = `${crd.spec.group}/${crd.spec.versions[0]?.name}`;
    await until(
      `${crd.spec.names.kind} in discovery`,
      async () => (await client.resourceFor(apiVersion, crd.spec.names.kind)) !== undefined,
      timeoutMs,
    );
  }
  await installDefaultRules(client);
  await installRuleLibrary(client);
  await applyObject(
    client,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: leaseNamespace } },
    { fieldManager: FIELD_MANAGER, force: true },
  );
}
