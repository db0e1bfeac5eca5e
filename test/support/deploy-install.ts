// deploy/ as an operator installs it, for e2e tests that run both processes with exactly their
// ServiceAccounts' rights: the default rules and the two identities with the RBAC file of one mode
// (rbac-tenant.yaml, the default, or rbac-apply.yaml), a kubeconfig per ServiceAccount holding a
// TokenRequest token and nothing else, the controller-manager's --tenancy as deploy/'s Deployment says
// it, and the 401/403s the denial preload reports.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import { parseControllerManagerFlags } from '../../src/cmd/controller-manager-flags.ts';
import type { Tenancy } from '../../src/controller/release/act/target.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { serviceAccountToken, waitForAccess } from './rbac.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** NODE_OPTIONS of a process whose every 401/403 is printed as a CONVOY-DENIED line. */
export const DENIAL_PRELOAD = `--import=${new URL('./deploy-denials.preload.ts', import.meta.url).href}`;

/** deploy/ files that make up the two identities, apart from the mode's RBAC file (rbac-apply or rbac-tenant). */
const RBAC_FILES = [
  'namespace.yaml',
  'api/rbac.yaml',
  'controller-manager/rbac.yaml',
  'observer/serviceaccount.yaml',
  'observer/rbac.yaml',
];

export async function deployDocs(file: string): Promise<KubeObject[]> {
  const text = await readFile(join(ROOT, 'deploy', file), 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** The --tenancy of deploy/'s controller-manager Deployment, parsed as the process parses it. */
export async function deployedTenancy(): Promise<Tenancy> {
  const [d] = await deployDocs('controller-manager/deployment.yaml');
  const c = (d as unknown as { spec: { template: { spec: { containers: { args: string[] }[] } } } }).spec
    .template.spec.containers[0];
  assert.ok(c);
  const parsed = parseControllerManagerFlags(c.args, {}, { hostname: 'pod', pid: 1, tmpdir: '/tmp' });
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).options.tenancy;
}

/**
 * Installs the default rules and deploy/'s identities with the RBAC file of one mode, and writes a
 * kubeconfig per ServiceAccount (convoy-controller-manager, convoy-observer) into `dir`; returns their paths.
 */
export async function installAs(
  admin: KubeClient,
  cp: ControlPlane,
  dir: string,
  mode: 'controller-manager/rbac-apply.yaml' | 'controller-manager/rbac-tenant.yaml',
  /** Opt-in components' RBAC too, e.g. ui/rbac.yaml (the in-cluster web UI). */
  extra: readonly string[] = [],
): Promise<Record<'convoy-controller-manager' | 'convoy-observer', string>> {
  for (const obj of await deployDocs('rules/default-rules.yaml'))
    await applyObject(admin, obj, { fieldManager: 'convoy-install', force: true });
  for (const file of [...RBAC_FILES, mode, ...extra])
    for (const obj of await deployDocs(file))
      await applyObject(admin, obj, { fieldManager: 'convoy-install', force: true });

  const cluster = cp.kubeConfig.getCurrentCluster();
  assert.ok(cluster);
  const out: Record<string, string> = {};
  for (const sa of ['convoy-controller-manager', 'convoy-observer']) {
    const token = await serviceAccountToken(admin, 'convoy-system', sa);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: sa, token }],
      contexts: [{ name: sa, cluster: cluster.name, user: sa }],
      currentContext: sa,
    });
    const path = join(dir, `${sa}.kubeconfig`);
    out[sa] = path;
    await writeFile(path, kc.exportConfig(), { mode: 0o600 });
    // The RBAC authorizer learns new bindings from a watch: wait until it has them.
    await waitForAccess(admin, `RBAC knows ${sa}`, {
      user: `system:serviceaccount:convoy-system:${sa}`,
      resourceAttributes: {
        verb: 'create',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'convoy-system',
      },
    });
  }
  return out as Record<'convoy-controller-manager' | 'convoy-observer', string>;
}

/** The controller-manager flags an opt-in component's JSON patch adds (e.g. deploy/ui: --api-ui). */
export async function componentArgs(component: string): Promise<string[]> {
  const text = await readFile(join(ROOT, 'deploy', component, 'kustomization.yaml'), 'utf8');
  const k = parseAllDocuments(text)[0]?.toJSON() as {
    patches?: { target?: { kind?: string; name?: string }; patch?: string }[];
  };
  const out: string[] = [];
  for (const p of k.patches ?? []) {
    if (p.target?.kind !== 'Deployment' || p.target.name !== 'convoy-controller-manager') continue;
    const ops = parseAllDocuments(p.patch ?? '')[0]?.toJSON() as {
      op: string;
      path: string;
      value: string;
    }[];
    for (const op of ops) {
      assert.equal(op.path, '/spec/template/spec/containers/0/args/-', `deploy/${component}: ${op.path}`);
      out.push(op.value);
    }
  }
  return out;
}

/** The CONVOY-DENIED lines of a process log (the preload's). */
export const denials = (log: string): string[] =>
  log.split('\n').filter((l) => l.startsWith('CONVOY-DENIED'));
