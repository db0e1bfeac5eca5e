// deploy/'s RBAC is enough, with nothing to spare that a rollout needs: convoy-controller-manager and
// convoy-observer run as child processes with kubeconfigs holding their ServiceAccounts' tokens
// (TokenRequest) and nothing else, bound by exactly the ServiceAccounts, ClusterRoles and bindings of
// deploy/ (the cluster-mode opt-in first, then the default tenant mode); the observer wakes the controller through its HTTP API with its own
// token. They roll out the guestbook example from a git repository (waves, a
// PostSync hook, default health rules), roll back a broken commit, and delete it; every 401/403 any of
// their requests got — also those the code swallows — is reported by a preload on Node's diagnostics
// channels, and there must be none. The tenant install also enables the opt-in web UI component
// (deploy/ui: --api-ui and its impersonation ClusterRole): a team member's session, watches and all,
// runs impersonating them with those rights alone.
import assert from 'node:assert/strict';
import { execFile as execFileCb } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubeObject, Release, ReleaseInventory } from '../../src/api/types.ts';
import { BROKEN_PATCH, exampleRelease, git, initExampleRepo } from '../../src/cli/dev-example.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import {
  componentArgs,
  DENIAL_PRELOAD,
  denials,
  deployedTenancy,
  installAs,
} from '../support/deploy-install.ts';
import { httpsGet } from '../support/https-get.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startControllerManager,
  startObserver,
  wakeupsTo,
} from '../support/processes.ts';
import { bindUiRole, serviceAccountToken, UI_RESOURCES, waitForAccess } from '../support/rbac.ts';
import { deleteReleaseAndWait, getInventory, getRelease } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'shop';
const APP_NS = 'guestbook';
const NAME = 'guestbook';
/** Waits for a rollout state of a commit; on timeout says where the Release stood and what the processes logged. */
async function waitRollout(
  admin: KubeClient,
  state: string,
  commit: string,
  logs: () => string,
): Promise<Release> {
  let last: Release | undefined;
  try {
    return await waitFor(
      `rollout ${state} for ${commit}`,
      async () => {
        last = await getRelease(admin, NS, NAME);
        const ro = last?.status?.rollout;
        return ro?.state === state && ro.revision?.includes(commit) === true ? last : false;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
  } catch (err) {
    const tail = logs().split('\n').slice(-40).join('\n');
    throw new Error(`${errorMessage(err)}\nstatus: ${JSON.stringify(last?.status, null, 1)}\nlogs:\n${tail}`);
  }
}

/**
 * The observer woke the controller through the HTTP API (RBAC: create releases/sync in
 * api.convoy.kumodo.io, deploy/api/rbac.yaml): the API answered POST /sync with 200 and never 401/403
 * (the preload sees the observer's side of it).
 */
async function assertWakeupsServed(controller: ManagerProcess, observer: ObserverProcess): Promise<void> {
  const served = await controller.apiRequests('sync', 200);
  assert.ok(served >= 1, `POST /sync served: ${served}`);
  assert.equal(await controller.apiRequests('sync', 401), 0, 'sync answered 401');
  assert.equal(await controller.apiRequests('sync', 403), 0, 'sync answered 403');
  assert.ok((await observer.metric('convoy_health_sync_requests_total')) >= 1, 'wake-ups the observer sent');
}

/** The two processes as deploy/ installs them, in a cluster of their own; see useDeployedSystem. */
interface DeployedSystem {
  readonly admin: KubeClient;
  readonly dir: string;
  readonly kubeconfigs: Record<string, string>;
  readonly controller: ManagerProcess;
  readonly observer: ObserverProcess;
}

/**
 * Starts, before the tests of the enclosing describe, a cluster with deploy/'s RBAC (`rbac` and
 * `extras` of deploy-install), `prepare` run as the admin, and both processes with their ServiceAccounts'
 * kubeconfigs and the denial preload; the observer wakes the controller through its API. Stops all after.
 */
function useDeployedSystem(o: {
  readonly name: string;
  readonly rbac: Parameters<typeof installAs>[3];
  readonly extras?: readonly string[];
  readonly tenancy: () => Promise<Parameters<typeof startControllerManager>[0]['tenancy']>;
  readonly args?: () => Promise<readonly string[]>;
  readonly prepare?: (admin: KubeClient) => Promise<void>;
}): DeployedSystem & { readonly logs: () => string } {
  let cluster: CrdCluster | undefined;
  let sys: DeployedSystem | undefined;
  let controller: ManagerProcess | undefined;
  let observer: ObserverProcess | undefined;
  before(async () => {
    cluster = await startCrdCluster({ workloads: true, nodes: 2, scratch: `convoy-deploy-${o.name}-` });
    const { cp, client: admin, work: dir } = cluster;
    const kubeconfigs = await installAs(admin, cp, dir, o.rbac, o.extras);
    await o.prepare?.(admin);
    const env = { NODE_OPTIONS: DENIAL_PRELOAD };
    controller = await startControllerManager({
      tenancy: await o.tenancy(),
      kubeconfigPath: kubeconfigs['convoy-controller-manager'] ?? '',
      identity: `controller-${o.name}`,
      gitCacheDir: join(dir, 'git-cache'),
      env,
      ...(o.args === undefined ? {} : { args: [...(await o.args())] }),
    });
    // Wake-ups straight to the controller-manager's API with the observer's ServiceAccount token: the
    // API reviews it (TokenReview, SubjectAccessReview) with the controller-manager's own identity.
    observer = await startObserver({
      kubeconfigPath: kubeconfigs['convoy-observer'] ?? '',
      identity: `observer-${o.name}`,
      wakeups: wakeupsTo(controller),
      env,
    });
    sys = { admin, dir, kubeconfigs, controller, observer };
  });
  after(async () => {
    await controller?.stop();
    await observer?.stop();
    await cluster?.stop();
  });
  const started = (): DeployedSystem => {
    assert.ok(sys, 'the deployed system started');
    return sys;
  };
  return {
    get admin() {
      return started().admin;
    },
    get dir() {
      return started().dir;
    },
    get kubeconfigs() {
      return started().kubeconfigs;
    },
    get controller() {
      return started().controller;
    },
    get observer() {
      return started().observer;
    },
    logs: () => `${controller?.log() ?? ''}\n${observer?.log() ?? ''}`,
  };
}

describe('deploy/ RBAC: both processes with their ServiceAccounts only', () => {
  const d = useDeployedSystem({
    name: 'rbac',
    rbac: 'controller-manager/rbac-apply.yaml',
    tenancy: async () => ({ mode: 'cluster' }),
    prepare: (admin) =>
      admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).then(() => {}),
  });
  let repo: string;

  before(async () => {
    repo = join(d.dir, 'repo');
    const url = await initExampleRepo(repo);
    await d.admin.create(
      exampleRelease({ name: NAME, namespace: NS, url, targetNamespace: APP_NS, rolloutDeadline: '20s' }),
    );
  });

  test('the denial recorder sees a 403 (so its silence below means something)', async () => {
    // The observer's identity may not delete ConfigMaps; one request through client-node (undici)
    // and one through node:https, as convoy's two HTTP stacks.
    const script = `
      import { KubeConfig } from '@kubernetes/client-node';
      import { KubeClient } from './src/kube/client.ts';
      import { Transport } from './src/runtime/transport.ts';
      const kc = new KubeConfig();
      kc.loadFromFile(${JSON.stringify(d.kubeconfigs['convoy-observer'])});
      await new KubeClient(kc).delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' }).catch(() => {});
      await new Transport(kc).request('DELETE', '/api/v1/namespaces/default/configmaps/y').catch(() => {});
    `;
    const { stderr } = await execFile(
      process.execPath,
      [DENIAL_PRELOAD, '--input-type=module', '-e', script],
      { cwd: ROOT },
    );
    const seen = denials(stderr);
    assert.equal(seen.length, 2, stderr);
    assert.match(seen[0] ?? '', /^CONVOY-DENIED 403 DELETE .*\/configmaps\/x$/);
    assert.match(seen[1] ?? '', /^CONVOY-DENIED 403 DELETE .*\/configmaps\/y$/);
  });

  test('the example rolls out to Succeeded, PostSync hook included', async () => {
    const head = await git(repo, 'rev-parse', 'HEAD');
    const release = await waitRollout(d.admin, 'Succeeded', head, d.logs);
    const summary = release.status?.healthSummary;
    assert.ok(
      summary !== undefined && summary.total > 0 && summary.healthy === summary.total,
      JSON.stringify(summary),
    );
    const inv = (await getInventory(d.admin, NS, NAME)) as ReleaseInventory | undefined;
    assert.deepEqual(
      inv?.hooks?.map((h) => [h.phase, h.state]),
      [['PostSync', 'Succeeded']],
    );
    const waves = (release.status?.waves ?? []).filter(
      (w) => w.renderRef === release.status?.rollout?.renderRef,
    );
    assert.deepEqual(waves.map((w) => w.wave).sort(), [0, 1]);
  });

  test('a broken commit is rolled back to the last healthy render', async () => {
    const good = (await getRelease(d.admin, NS, NAME))?.status?.lastHealthy?.renderRef;
    assert.ok(good);
    await git(repo, 'apply', BROKEN_PATCH);
    await git(repo, 'commit', '-q', '-am', 'Break the frontend');
    const broken = await git(repo, 'rev-parse', 'HEAD');
    await waitRollout(d.admin, 'RolledBack', broken, d.logs);
    const deployment = await waitFor('the frontend runs the good image again', async () => {
      const dep = await d.admin.get<{ spec: { template: { spec: { containers: { image: string }[] } } } }>({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: APP_NS,
        name: 'frontend',
      });
      const image = dep?.spec.template.spec.containers[0]?.image;
      return image !== undefined && !image.endsWith('-does-not-exist') ? dep : false;
    });
    assert.ok(deployment);
    assert.equal((await getRelease(d.admin, NS, NAME))?.status?.lastHealthy?.renderRef, good);
  });

  test('deleting the Release prunes the app and its stored renders', async () => {
    await deleteReleaseAndWait(d.admin, NS, NAME, { timeoutMs: 120_000, intervalMs: 500 });
    const secrets = await d.admin.list<KubeObject>(
      { apiVersion: 'v1', kind: 'Secret', namespace: NS },
      { labelSelector: 'convoy.kumodo.io/release' },
    );
    assert.deepEqual(
      secrets.map((s) => s.metadata.name),
      [],
    );
    const ns = await d.admin.get<{ metadata: { deletionTimestamp?: string } }>({
      apiVersion: 'v1',
      kind: 'Namespace',
      name: APP_NS,
    });
    assert.ok(ns === undefined || ns.metadata.deletionTimestamp !== undefined, 'the app namespace is pruned');
  });

  test("the observer's wake-ups reached the API with its own token, none refused", async () => {
    await assertWakeupsServed(d.controller, d.observer);
  });

  test('no request of either process was denied', async () => {
    // Stop first, so requests made on the way out (releasing Leases) count too.
    await d.controller.stop();
    await d.observer.stop();
    assert.deepEqual(denials(d.controller.log()), [], 'controller-manager');
    assert.deepEqual(denials(d.observer.log()), [], 'observer');
    assert.doesNotMatch(d.controller.log(), /forbidden/i);
    assert.doesNotMatch(d.observer.log(), /forbidden/i);
  });
});

describe("deploy/ as installed (tenant mode): convoy writes only as the Release's serviceAccountName", () => {
  const TEAM = 'team';
  const manifests = `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {greeting: hello}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {convoy.kumodo.io/sync-wave: "1"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.k8s.io/pause:3.10}]}
---
# A finished hook is the edge only the observer's POST /sync carries to the controller: the wake-up path
# runs under this install's RBAC too.
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke
  annotations: {convoy.kumodo.io/hook: PostSync}
spec:
  backoffLimit: 0
  template:
    spec: {restartPolicy: Never, containers: [{name: smoke, image: registry.k8s.io/pause:3.10}]}
`;
  const release = (name: string, serviceAccountName?: string): Release => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name, namespace: TEAM },
    spec: {
      source: { inline: { manifests } },
      render: { targetNamespace: TEAM },
      ...(serviceAccountName === undefined ? {} : { serviceAccountName }),
      syncPolicy: { mode: 'Auto', interval: '10s', prune: true },
      healthAssessment: { globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } } },
      failurePolicy: { deadline: '1m', rollback: 'OnFailure' },
    },
  });

  const d = useDeployedSystem({
    name: 'tenant',
    rbac: 'controller-manager/rbac-tenant.yaml',
    extras: ['ui/rbac.yaml'],
    tenancy: deployedTenancy,
    args: () => componentArgs('ui'),
    // The team's own deployer: it may write what its renders hold, in its namespace only.
    prepare: async (admin) => {
      for (const obj of [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEAM } },
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: TEAM } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'deployer', namespace: TEAM },
          rules: [
            {
              apiGroups: ['', 'apps', 'batch'],
              resources: ['configmaps', 'deployments', 'jobs'],
              verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
            },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'deployer', namespace: TEAM },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
          subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: TEAM }],
        },
      ] as KubeObject[])
        await applyObject(admin, obj, { fieldManager: 'convoy-test', force: true });
    },
  });

  test('a Release with serviceAccountName rolls out to Succeeded and is deleted, with no request denied', async () => {
    await d.admin.create(release('web', 'deployer'));
    await waitFor(
      'rollout Succeeded',
      async () => (await getRelease(d.admin, TEAM, 'web'))?.status?.rollout?.state === 'Succeeded',
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    await deleteReleaseAndWait(d.admin, TEAM, 'web', { timeoutMs: 120_000, intervalMs: 500 });
    assert.equal(
      await d.admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: TEAM, name: 'web' }),
      undefined,
      'pruned as the deployer',
    );
    assert.deepEqual(denials(d.controller.log()), [], 'controller-manager');
    assert.deepEqual(denials(d.observer.log()), [], 'observer');
    await assertWakeupsServed(d.controller, d.observer);
  });

  test('the default install refuses a Release without serviceAccountName: a condition, an Event, nothing tried', async () => {
    const before = denials(d.controller.log()).length;
    await d.admin.create(release('rogue'));
    const ready = await waitFor(
      'Ready=False ServiceAccountRequired',
      async () => {
        const c = (await getRelease(d.admin, TEAM, 'rogue'))?.status?.conditions?.find(
          (x) => x.type === 'Ready',
        );
        return c?.reason === 'ServiceAccountRequired' ? c : false;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    assert.equal(ready.status, 'False');
    assert.match(ready.message, /no spec\.serviceAccountName/);
    assert.match(ready.message, /--default-service-account/);
    assert.match(ready.message, /set spec\.serviceAccountName to a ServiceAccount of namespace "team"/);
    const event = await waitFor('a Warning Event', async () => {
      const events = await d.admin.list<KubeObject & { reason?: string; type?: string }>(
        { apiVersion: 'v1', kind: 'Event', namespace: TEAM },
        { fieldSelector: 'involvedObject.name=rogue' },
      );
      return events.find((e) => e.reason === 'ServiceAccountRequired') ?? false;
    });
    assert.equal(event.type, 'Warning');
    assert.deepEqual(denials(d.controller.log()).slice(before), [], 'no write was even tried');
    assert.equal(
      await d.admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: TEAM, name: 'web-config' }),
      undefined,
      'nothing was written',
    );
  });

  test("with deploy/ui, a team member's web UI session runs as them on convoy's ServiceAccount alone", async () => {
    assert.deepEqual(await componentArgs('ui'), ['--api-ui']);
    assert.ok(d.controller.api);
    const before = denials(d.controller.log()).length;
    await d.admin.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'dev', namespace: TEAM },
    });
    await bindUiRole(
      d.admin,
      TEAM,
      'ui-dev',
      [{ kind: 'ServiceAccount', name: 'dev', namespace: TEAM }],
      UI_RESOURCES,
      {
        resources: ['ui/proxy'],
        verbs: ['get', 'create'],
      },
    );
    await waitForAccess(d.admin, 'dev may watch releases', {
      user: `system:serviceaccount:${TEAM}:dev`,
      resourceAttributes: { verb: 'watch', group: 'convoy.kumodo.io', resource: 'releases', namespace: TEAM },
    });
    const token = await serviceAccountToken(d.admin, TEAM, 'dev', 600);
    // Straight to convoy's port with the member's token: TokenReview names them (user, uid, groups and
    // the credential-id extra), and the session impersonates all of it.
    const { url, caPem } = d.controller.api;
    const res = await httpsGet(
      `${url}/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${TEAM}/ui/web/proxy/api/releases`,
      {
        ca: caPem,
        headers: { authorization: `Bearer ${token}` },
        timeoutMs: 60_000,
      },
    );
    assert.equal(res.status, 200, res.body);
    const rows = (JSON.parse(res.body) as { rows: { key: string }[] }).rows.map((r) => r.key);
    assert.deepEqual(rows, [`${TEAM}/rogue`]);
    const problems = (JSON.parse(res.body) as { problems?: unknown[] }).problems ?? [];
    assert.deepEqual(problems, [], 'every watch of the session runs');
    assert.deepEqual(denials(d.controller.log()).slice(before), [], 'no impersonated request was denied');
  });
});
