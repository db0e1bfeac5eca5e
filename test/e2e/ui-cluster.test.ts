// The web UI served in a cluster behind convoy's aggregated API (controller-manager --api-ui;
// docs/ui.md#in-a-cluster), in Debian's Chromium through `kubectl proxy` as a user reaches it: the
// aggregation layer authenticates the user, convoy's API server takes the front proxy's identity and
// the UI acts as that user by impersonation. An admin sees every namespace and a new Release without
// a reload (the event stream passes both proxies); a viewer who may only read sees their namespace and,
// on a Release page, which permission the actions need before any click (the review is made as the
// viewer, not as convoy); a user without `get ui/proxy` is refused by the API server itself. Who asked
// for a sync is the user kube-apiserver names, through every proxy: alice (kubectl --as) forcing a sync
// in the page and bob's `kubectl create --raw …/sync` are Events naming them, and the timeline says so.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ANNOTATION_FORCE_SYNC_BY, ANNOTATION_SYNC_REQUESTED_BY } from '../../src/api/constants.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { ensureBinaries } from '../../src/testenv/build.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { renderKubeconfig } from '../../src/testenv/kubeconfig.ts';
import { startAggregatedManager } from '../support/aggregated.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { configMap, inlineRelease } from '../support/hooks.ts';
import { httpsGet } from '../support/https-get.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { bindUiRole, bindViewer, serviceAccountToken, UI_RESOURCES, waitForAccess } from '../support/rbac.ts';
import { getRelease } from '../support/release.ts';
import { runCommand } from '../support/run-command.ts';
import { launchBrowser, screenshot, seriousViolations } from '../support/ui.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'shop';
const OTHER = 'other';
const WAIT_MS = 60_000;
const UI = '/apis/api.convoy.kumodo.io/v1alpha1/ui/web/proxy/';
const UI_NS = `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/ui/web/proxy/`;

let cluster: CrdCluster | undefined;
let cp: ControlPlane;
let client: KubeClient;
let manager: ManagerProcess | undefined;
let browser: Browser | undefined;
const proxies: ChildProcess[] = [];

/** `kubectl proxy` with this kubeconfig (and e.g. --as) on a free port; resolves to its address. */
async function kubectlProxy(kubeconfig: string, extra: readonly string[] = []): Promise<string> {
  const kubectl = join(await ensureBinaries(), 'kubectl');
  const child = spawn(kubectl, ['proxy', '--port=0', `--kubeconfig=${kubeconfig}`, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proxies.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kubectl proxy printed no address:\n${out}`)), WAIT_MS);
    const on = (b: Buffer) => {
      out += b.toString();
      const m = /Starting to serve on (127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kubectl proxy exited (${code}):\n${out}`));
    });
  });
}

/** A ServiceAccount's kubeconfig (a token from the TokenRequest API). */
async function accountKubeconfig(name: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NS } });
  const token = await serviceAccountToken(client, NS, name);
  const path = join(cluster?.work ?? '', `${name}.kubeconfig`);
  await writeFile(path, renderKubeconfig(name, { server: cp.server, caPem: cp.caPem, token }));
  return path;
}

before(async () => {
  cluster = await startCrdCluster({
    aggregation: true,
    namespaces: ['convoy-system', NS, OTHER],
    scratch: 'convoy-ui-cluster-e2e-',
  });
  ({ cp, client } = cluster);
  manager = await startAggregatedManager(cluster, 'ui-cluster', ['--api-ui']);
  await client.create(inlineRelease(NS, 'web', [configMap('web')], {}));
  await client.create(inlineRelease(OTHER, 'batch', [configMap('batch')], {}));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const p of proxies) p.kill('SIGTERM');
  await manager?.stop();
  await cluster?.stop();
});

test('through kubectl proxy and the aggregated API, an admin sees every namespace and a new Release live', async () => {
  const proxy = await kubectlProxy(cp.kubeconfigPath);
  const page = await (await browser?.newContext({ viewport: { width: 1280, height: 900 } }))?.newPage();
  assert.ok(page);
  await page.goto(`${proxy}${UI}`);
  await page.getByRole('heading', { level: 1, name: 'Releases' }).waitFor({ timeout: WAIT_MS });
  await page.locator(`tr[data-release="${NS}/web"]`).waitFor({ timeout: WAIT_MS });
  await page.locator(`tr[data-release="${OTHER}/batch"]`).waitFor({ timeout: WAIT_MS });
  await page.evaluate(() => {
    (globalThis as { notReloaded?: boolean }).notReloaded = true;
  });
  await client.create(inlineRelease(NS, 'late', [configMap('late')], {}));
  await page.locator(`tr[data-release="${NS}/late"]`).waitFor({ timeout: WAIT_MS });
  assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true);
  // A link of the page stays under the aggregated path, and the admin is offered every action.
  await page.locator(`tr[data-release="${NS}/web"] a`).click();
  await page.getByRole('heading', { level: 1, name: `Release ${NS}/web` }).waitFor({ timeout: WAIT_MS });
  assert.equal(new URL(page.url()).pathname, `${UI}releases/${NS}/web`);
  const sync = page.getByRole('button', { name: 'Sync', exact: true });
  await waitFor('the pre-check to offer the admin Sync', () => sync.isEnabled(), { timeoutMs: WAIT_MS });
  assert.equal(await page.getByTestId('permission-precheck').count(), 0);
  await screenshot(page, 'cluster-release-admin');
  await page.close();
});

test('a viewer reaches their namespace and is told, before any click, which permission the actions need', async () => {
  const kubeconfig = await accountKubeconfig('viewer');
  const viewer = `system:serviceaccount:${NS}:viewer`;
  await bindViewer(client, NS, 'viewer', UI_RESOURCES, {
    resources: ['ui/proxy'],
    verbs: ['get', 'create'],
  });
  await waitForAccess(client, 'the viewer may get ui/proxy', {
    user: viewer,
    resourceAttributes: {
      verb: 'get',
      group: 'api.convoy.kumodo.io',
      resource: 'ui',
      subresource: 'proxy',
      namespace: NS,
    },
  });
  const proxy = await kubectlProxy(kubeconfig);
  const page = await (await browser?.newContext({ viewport: { width: 420, height: 900 } }))?.newPage();
  assert.ok(page);
  await page.goto(`${proxy}${UI_NS}`);
  await page.locator(`tr[data-release="${NS}/web"]`).waitFor({ timeout: WAIT_MS });
  // The viewer's own watches: their namespace only (convoy itself could list every one).
  assert.equal(await page.locator(`tr[data-release="${OTHER}/batch"]`).count(), 0);
  await page.locator(`tr[data-release="${NS}/web"] a`).click();
  const note = page.getByTestId('permission-precheck');
  await note.waitFor({ timeout: WAIT_MS });
  assert.match(
    await note.innerText(),
    /you may not create\s+releases\/sync\s+\(API group api\.convoy\.kumodo\.io\) in namespace shop/,
  );
  assert.equal(await page.getByRole('button', { name: 'Sync', exact: true }).isDisabled(), true);
  await screenshot(page, 'cluster-release-viewer-narrow');
  const serious = await seriousViolations(page);
  assert.deepEqual(serious, [], `axe: ${JSON.stringify(serious, null, 2)}`);
  await page.close();
});

test("straight to convoy's port: no credentials 401, a bearer token is the user it names", async () => {
  assert.ok(manager?.api);
  const { url, caPem } = manager.api;
  const token = await serviceAccountToken(client, NS, 'viewer', 600);
  const get = (headers: Record<string, string>) =>
    httpsGet(`${url}${UI_NS}api/releases`, { ca: caPem, headers, timeoutMs: WAIT_MS });
  assert.equal((await get({})).status, 401);
  const asViewer = await get({ authorization: `Bearer ${token}` });
  assert.equal(asViewer.status, 200, asViewer.body);
  const rows = (JSON.parse(asViewer.body) as { rows: { key: string }[] }).rows.map((r) => r.key);
  assert.deepEqual(rows.sort(), [`${NS}/late`, `${NS}/web`]);
});

test('a user without get ui/proxy is refused by the API server, naming the permission', async () => {
  const kubeconfig = await accountKubeconfig('outsider');
  const proxy = await kubectlProxy(kubeconfig);
  const res = await fetch(`${proxy}${UI_NS}`, { signal: AbortSignal.timeout(WAIT_MS) });
  assert.equal(res.status, 403);
  const status = (await res.json()) as { message: string };
  assert.match(
    status.message,
    /User "system:serviceaccount:shop:outsider" cannot get resource "ui\/proxy" in API group "api\.convoy\.kumodo\.io" in the namespace "shop"/,
  );
});

test('who asked: a sync through kube-apiserver as an impersonated user is an Event naming them, and the timeline says so', async () => {
  // alice and bob exist only as names kubectl impersonates (the admin may impersonate anyone).
  await bindUiRole(
    client,
    NS,
    'ui-operator',
    [
      { kind: 'User', name: 'alice' },
      { kind: 'User', name: 'bob' },
    ],
    UI_RESOURCES,
    {
      resources: ['ui/proxy', 'releases/sync', 'releases/history', 'releases/renders'],
      verbs: ['get', 'create'],
    },
  );
  for (const user of ['alice', 'bob']) {
    await waitForAccess(client, `${user} may create releases/sync`, {
      user,
      resourceAttributes: {
        verb: 'create',
        group: 'api.convoy.kumodo.io',
        resource: 'releases',
        subresource: 'sync',
        namespace: NS,
      },
    });
  }
  const events = async (reason: string) =>
    (
      await client.list<{ reason?: string; message?: string; reportingComponent?: string }>(
        { apiVersion: 'v1', kind: 'Event', namespace: NS },
        { fieldSelector: `involvedObject.name=web,reason=${reason}` },
      )
    ).filter((e) => e.reportingComponent === 'convoy-api');

  // alice in the page (kubectl proxy --as=alice): the UI acts as her, so /sync hears her name.
  const proxy = await kubectlProxy(cp.kubeconfigPath, ['--as=alice']);
  const page = await (await browser?.newContext({ viewport: { width: 1280, height: 900 } }))?.newPage();
  assert.ok(page);
  await page.goto(`${proxy}${UI_NS}releases/${NS}/web`);
  await page.getByRole('heading', { level: 1, name: `Release ${NS}/web` }).waitFor({ timeout: WAIT_MS });
  const force = page.getByRole('button', { name: 'Forced sync', exact: true });
  await waitFor('the pre-check to offer alice Forced sync', () => force.isEnabled(), { timeoutMs: WAIT_MS });
  await force.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Force sync', exact: true }).click();
  const forced = await waitFor(
    'an Event naming alice',
    async () => {
      const e = await events('ForcedSyncRequested');
      return e.find((x) => x.message === 'forced sync requested by alice');
    },
    { timeoutMs: WAIT_MS },
  );
  assert.ok(forced);
  const r = await getRelease(client, NS, 'web');
  assert.equal(r?.metadata.annotations?.[ANNOTATION_FORCE_SYNC_BY], 'user:alice');
  await page
    .locator('ol.timeline li[data-kind="trigger"]', { hasText: 'forced sync requested by alice' })
    .waitFor({ timeout: WAIT_MS });

  // bob with kubectl straight at the API (no UI): the same, and alice's page shows it live.
  const kubectl = join(await ensureBinaries(), 'kubectl');
  const raw = await runCommand(
    kubectl,
    [
      'create',
      '--raw',
      `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/releases/web/sync`,
      '-f',
      '-',
      '--as=bob',
      `--kubeconfig=${cp.kubeconfigPath}`,
    ],
    { cwd: cluster?.work ?? '.', env: { PATH: process.env.PATH ?? '' }, input: '{}', timeoutMs: WAIT_MS },
  );
  assert.equal(raw.code, 0, raw.out);
  await waitFor(
    'an Event naming bob',
    async () => {
      const e = await events('SyncRequested');
      return e.find((x) => x.message === 'sync requested by bob');
    },
    { timeoutMs: WAIT_MS },
  );
  const after = await getRelease(client, NS, 'web');
  assert.equal(after?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_BY], 'user:bob');
  // bob's plain sync leaves alice's forced sync hers.
  assert.equal(after?.metadata.annotations?.[ANNOTATION_FORCE_SYNC_BY], 'user:alice');
  await page
    .locator('ol.timeline li[data-kind="trigger"]', { hasText: 'sync requested by bob' })
    .waitFor({ timeout: WAIT_MS });
  await screenshot(page, 'cluster-release-who-asked');
  await page.close();
});
