// deploy/ stays installable: kustomization.yaml lists every manifest (the cluster-mode RBAC file is the
// documented alternative), the default rules there are src/rules/default-rules.yaml byte for byte, the
// Deployments run entry points that exist with flags they accept (the shared ones equal on both) and
// ServiceAccounts deploy/ declares, probed with httpGet on a probe server that listens on the pod IP,
// and the API server accepts every object (CRDs applied, then everything else with server-side dry run).
// The opt-in web UI component (deploy/ui), uncommented as docs/ui.md says, builds with kubectl kustomize
// into a controller-manager with --api-ui and the impersonation ClusterRole bound to its ServiceAccount.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import { parseControllerManagerFlags } from '../../src/cmd/controller-manager-flags.ts';
import { parseObserverFlags } from '../../src/cmd/observer-flags.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { libraryYaml } from '../../src/rules/library.ts';
import { PROCESS_NODE_FLAGS } from '../../src/runtime/node-flags.ts';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { runCommand } from '../support/run-command.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPLOY = join(ROOT, 'deploy');
/**
 * In deploy/ but deliberately not in kustomization.yaml's resources: the alternative RBAC mode (cluster,
 * opt-in) and the opt-in web UI component's RBAC (deploy/ui, listed by its own kustomization.yaml).
 */
const ALTERNATIVES = ['controller-manager/rbac-apply.yaml', 'ui/rbac.yaml'];
/** Kustomize files other than the top one. */
const COMPONENTS = ['ui/kustomization.yaml'];

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(p)));
    else if (e.name.endsWith('.yaml')) out.push(relative(DEPLOY, p));
  }
  return out.sort();
}

async function docs(file: string): Promise<KubeObject[]> {
  return parseAllDocuments(await readFile(join(DEPLOY, file), 'utf8'))
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

async function kustomized(): Promise<string[]> {
  const k = parse(await readFile(join(DEPLOY, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return k.resources;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
  exec?: unknown;
}

interface PodTemplate {
  spec: {
    template: {
      spec: {
        serviceAccountName: string;
        containers: {
          image: string;
          command: string[];
          args: string[];
          ports?: { name: string; containerPort: number }[];
          livenessProbe?: Probe;
          readinessProbe?: Probe;
        }[];
      };
    };
  };
}

describe('deploy/ manifests, offline', () => {
  test('kustomization.yaml lists every manifest once, and only files that exist', async () => {
    const listed = await kustomized();
    assert.equal(new Set(listed).size, listed.length, 'no duplicates');
    const all = (await yamlFiles(DEPLOY)).filter(
      (f) => f !== 'kustomization.yaml' && !COMPONENTS.includes(f),
    );
    assert.deepEqual([...listed, ...ALTERNATIVES].sort(), all);
  });

  test('the default rules and the library are copies of src/rules (npm run gen:deploy-rules)', async () => {
    const source = await readFile(join(ROOT, 'src/rules/default-rules.yaml'), 'utf8');
    const copy = await readFile(join(DEPLOY, 'rules/default-rules.yaml'), 'utf8');
    assert.ok(copy === source, 'deploy/rules/default-rules.yaml drifted: npm run gen:deploy-rules');
    const library = await readFile(join(DEPLOY, 'rules/library.yaml'), 'utf8');
    assert.ok(library.endsWith(libraryYaml()), 'deploy/rules/library.yaml drifted: npm run gen:deploy-rules');
  });

  test('the Deployments run existing entry points, with accepted flags and declared ServiceAccounts', async () => {
    const all = (await Promise.all((await kustomized()).map(docs))).flat();
    const accounts = all
      .filter((o) => o.kind === 'ServiceAccount')
      .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    const deployments = all.filter((o) => o.kind === 'Deployment') as unknown as (KubeObject & PodTemplate)[];
    assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), [
      'convoy-controller-manager',
      'convoy-observer',
    ]);
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      assert.ok(accounts.includes(`${d.metadata.namespace}/${pod.serviceAccountName}`), d.metadata.name);
      const [c] = pod.containers;
      assert.ok(c);
      assert.equal(c.image, 'convoy:dev');
      const [node, ...rest] = c.command;
      assert.equal(node, 'node');
      const script = rest.at(-1);
      assert.deepEqual(rest.slice(0, -1), PROCESS_NODE_FLAGS, 'the processes run with PROCESS_NODE_FLAGS');
      assert.ok(script !== undefined && existsSync(join(ROOT, script)), `${script} exists`);
    }
    const host = { hostname: 'pod', pid: 1, tmpdir: '/tmp' };
    const container = (name: string) => {
      const c = deployments.find((d) => d.metadata.name === name)?.spec.template.spec.containers[0];
      assert.ok(c, name);
      return c;
    };
    const cm = container('convoy-controller-manager');
    const manager = parseControllerManagerFlags(cm.args, {}, host);
    assert.equal(manager.kind, 'run');
    if (manager.kind !== 'run') return;
    assert.notEqual(
      manager.api.kind,
      'off',
      'the controller-manager serves the HTTP API behind api/service.yaml',
    );
    assert.equal(manager.options.allowFileUrls, false, 'file:// sources are for convoy dev only');
    // Secure by default (docs/tenancy.md): tenant mode, with the RBAC that cannot write a render itself.
    assert.deepEqual(manager.options.tenancy, { mode: 'tenant' });
    const roles = all.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name);
    assert.ok(roles.includes('convoy-controller-manager-tenant'), 'rbac-tenant.yaml is installed');
    assert.ok(!roles.includes('convoy-controller-manager-apply'), 'rbac-apply.yaml is not');
    const ob = container('convoy-observer');
    const observer = parseObserverFlags(ob.args, {}, host);
    assert.equal(observer.kind, 'run');
    if (observer.kind !== 'run') return;
    // The settings both must agree on (docs/design.md#sharding).
    for (const key of ['shardCount', 'leaseNamespace'] as const) {
      assert.equal(observer.options[key], manager.options[key], key);
    }
    assert.equal(manager.options.leaseNamespace, 'convoy-system');
    // The kubelet probes the pod IP: the probe server must listen on every interface, on the port the
    // httpGet probes name.
    for (const [c, opts] of [
      [cm, manager.options],
      [ob, observer.options],
    ] as const) {
      assert.equal(opts.metricsBindAddress.host, '0.0.0.0', `${c.command.join(' ')}: --metrics-bind-address`);
      const port = c.ports?.find((p) => p.name === 'metrics');
      assert.equal(port?.containerPort, opts.metricsBindAddress.port, 'containerPort "metrics"');
      assert.deepEqual(c.livenessProbe?.httpGet, { path: '/healthz', port: 'metrics' });
      assert.deepEqual(c.readinessProbe?.httpGet, { path: '/readyz', port: 'metrics' });
      assert.equal(c.livenessProbe?.exec, undefined);
    }
  });

  test('the web UI component, uncommented as docs/ui.md says, adds --api-ui and the impersonation ClusterRole', async () => {
    const top = await readFile(join(DEPLOY, 'kustomization.yaml'), 'utf8');
    assert.match(
      top,
      /^# components:\n# {3}- ui$/m,
      'the opt-in line is in kustomization.yaml, commented out',
    );
    const work = await mkdtemp(join(tmpdir(), 'convoy-deploy-ui-'));
    try {
      await cp(DEPLOY, join(work, 'deploy'), { recursive: true });
      await writeFile(
        join(work, 'deploy', 'kustomization.yaml'),
        top.replace('# components:\n#   - ui', 'components:\n  - ui'),
      );
      const kubectl = join(await ensureBinaries(), 'kubectl');
      const built = await runCommand(kubectl, ['kustomize', join(work, 'deploy')], {
        cwd: work,
        env: { PATH: process.env.PATH ?? '' },
        timeoutMs: 60_000,
      });
      assert.equal(built.code, 0, built.out);
      const objects = parseAllDocuments(built.out)
        .map((d) => d.toJSON() as KubeObject | null)
        .filter((o): o is KubeObject => o !== null);
      const deployment = objects.find(
        (o) => o.kind === 'Deployment' && o.metadata.name === 'convoy-controller-manager',
      ) as unknown as PodTemplate | undefined;
      const args = deployment?.spec.template.spec.containers[0]?.args ?? [];
      const parsed = parseControllerManagerFlags(args, {}, { hostname: 'pod', pid: 1, tmpdir: '/tmp' });
      assert.equal(parsed.kind, 'run');
      if (parsed.kind !== 'run') return;
      assert.equal(parsed.api.kind, 'serve');
      assert.equal(parsed.api.kind === 'serve' && parsed.api.ui, true, `--api-ui in ${args.join(' ')}`);
      // Everything else is the default install, tenant mode included.
      assert.deepEqual(parsed.options.tenancy, { mode: 'tenant' });
      const binding = objects.find(
        (o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'convoy-ui-impersonator',
      ) as
        | (KubeObject & {
            roleRef: { name: string };
            subjects: { kind: string; name: string; namespace: string }[];
          })
        | undefined;
      assert.deepEqual(binding?.subjects, [
        { kind: 'ServiceAccount', name: 'convoy-controller-manager', namespace: 'convoy-system' },
      ]);
      const role = objects.find(
        (o) => o.kind === 'ClusterRole' && o.metadata.name === binding?.roleRef.name,
      ) as
        | (KubeObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] })
        | undefined;
      const granted = (role?.rules ?? []).flatMap((r) =>
        r.verbs.includes('impersonate')
          ? r.apiGroups.flatMap((g) => r.resources.map((x) => `${g}/${x}`))
          : [],
      );
      // What ui-backend.ts sends: Impersonate-User (a user or a ServiceAccount), -Group, -Uid, -Extra-*.
      assert.deepEqual(granted.sort(), [
        '/groups',
        '/serviceaccounts',
        '/users',
        // uids and userextras/<every key>: RBAC matches no "userextras/*", so the group's "*".
        'authentication.k8s.io/*',
      ]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

describe('deploy/ manifests against the API server', () => {
  // What docs/install.md says to do first: the CRDs, for real, then the namespace.
  const { cp, client } = useCrdCluster(
    {},
    {
      setUp: async ({ client }) => {
        for (const ns of await docs('namespace.yaml'))
          await applyObject(client, ns, { fieldManager: 'convoy-test', force: true });
      },
    },
  );

  test('every object of kustomization.yaml and the cluster-mode RBAC passes a server-side dry run', async () => {
    const files = [...(await kustomized()), ...ALTERNATIVES].filter(
      (f) => !f.startsWith('crds/') && f !== 'namespace.yaml',
    );
    // The control plane's CA stands in for the serving CA the user fills in.
    const cluster = cp.kubeConfig.getCurrentCluster();
    const ca =
      cluster?.caData ??
      (cluster?.caFile === undefined ? undefined : (await readFile(cluster.caFile)).toString('base64'));
    assert.ok(ca, 'the control plane has a CA');
    let checked = 0;
    for (const file of files) {
      for (const obj of await docs(file)) {
        if (obj.kind === 'APIService') {
          const spec = obj.spec as { caBundle?: string };
          assert.match(spec.caBundle ?? '', /^REPLACE_WITH/);
          spec.caBundle = ca;
        }
        // Strict: an unknown or misspelt field is an error, not a warning.
        await client
          .request({
            method: 'PATCH',
            path: await client.pathOf({ ...obj, namespace: obj.metadata.namespace, name: obj.metadata.name }),
            contentType: 'application/apply-patch+yaml',
            body: obj,
            query: { fieldManager: 'convoy-test', force: 'true', dryRun: 'All', fieldValidation: 'Strict' },
          })
          .catch((err: Error) => {
            throw new Error(`${file}: ${obj.kind} ${obj.metadata.name}: ${err.message}`);
          });
        checked++;
      }
    }
    assert.ok(checked >= 20, `${checked} objects checked`);
  });
});
