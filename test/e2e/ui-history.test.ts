// The timeline's facts on a real control plane, with the observer run as deploy/'s ServiceAccount
// convoy-observer: when a hook finishes it wakes the controller through convoy's API (POST /sync, as
// itself), which stamps sync-requested-by with its name. The page shows that as the observer waking
// the controller, never as someone's request nor as what triggered a render. What triggered a render
// is recorded once, with it: a later action by a user relabels no earlier render.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { API_REQUEST_ANNOTATIONS } from '../../src/api/constants.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { installAs } from '../support/deploy-install.ts';
import { configMap, hookJob, inlineRelease, manifests } from '../support/hooks.ts';
import { getRelease, mergePatch, releaseRef } from '../support/release.ts';
import { DEFAULT_HEALTH } from '../support/system.ts';
import { violationsLightAndDark } from '../support/ui.ts';
import { startUiStack, type UiStack } from '../support/ui-stack.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'ui-history';
const WAIT_MS = 90_000;
const OBSERVER = 'user:system:serviceaccount:convoy-system:convoy-observer';

let cluster: CrdCluster | undefined;
let stack: UiStack | undefined;
let page: Page;

before(async () => {
  cluster = await startCrdCluster({
    aggregation: true,
    workloads: true,
    nodes: 1,
    namespaces: ['convoy-system', NS],
    scratch: 'convoy-ui-history-e2e-',
  });
  const kubeconfigs = await installAs(
    cluster.client,
    cluster.cp,
    cluster.work,
    'controller-manager/rbac-apply.yaml',
  );
  stack = await startUiStack(cluster, 'ui-history', { observerKubeconfig: kubeconfigs['convoy-observer'] });
  ({ page } = stack);
});

after(async () => {
  await stack?.stop();
  await cluster?.stop();
});

test("the observer's wake-up is shown as such, never as a request or a render's trigger", async () => {
  const client = cluster?.client;
  assert.ok(client);
  await client.create(
    inlineRelease(NS, 'shop', [configMap('settings'), hookJob('migrate', 'PostSync')], {
      healthAssessment: DEFAULT_HEALTH,
    }),
  );
  // The finished hook is an edge no watch of the controller carries: the observer sends /sync.
  const { sync } = API_REQUEST_ANNOTATIONS;
  await waitFor(
    'the observer to wake the controller through the API, as itself',
    async () => (await getRelease(client, NS, 'shop'))?.metadata.annotations?.[sync.by] === OBSERVER,
    { timeoutMs: WAIT_MS },
  );
  await page.locator(`tr[data-release="${NS}/shop"] a`).click({ timeout: WAIT_MS });
  await page.getByRole('heading', { level: 1, name: `Release ${NS}/shop` }).waitFor({ timeout: WAIT_MS });
  const timeline = page.locator('ol.timeline');
  await timeline
    .locator('li[data-kind="wakeup"]', { hasText: 'the observer woke the controller' })
    .waitFor({ timeout: WAIT_MS });
  assert.equal(await timeline.locator('li', { hasText: 'convoy-observer' }).count(), 0);
  assert.equal(await timeline.locator('li[data-kind="trigger"]').count(), 0);
  const render = timeline.locator('li[data-kind="render"]');
  assert.equal(await render.count(), 1, 'one render applied, shown once');
  assert.match(await render.locator('[data-trigger]').innerText(), /^triggered by: first render/);
  const v = await violationsLightAndDark(page, 'release-history');
  assert.deepEqual(v, [], `axe: ${JSON.stringify(v, null, 2)}`);
});

/** Approves the render awaiting approval through the page, as the UI's user, and returns its renderRef. */
async function approveInPage(name: string): Promise<string> {
  const client = cluster?.client;
  assert.ok(client);
  let ref = '';
  await waitFor(
    `${name}: a render awaiting approval`,
    async () => {
      const r = await getRelease(client, NS, name);
      ref = r?.status?.currentRender?.renderRef ?? '';
      return ref !== '' && !(r?.status?.history ?? []).some((h) => h.renderRef === ref);
    },
    { timeoutMs: WAIT_MS },
  );
  // The page shows that render before its button approves it (the button approves what the page shows).
  await page
    .locator('dd', { hasText: `${ref.slice(7, 19)} (awaiting approval)` })
    .waitFor({ timeout: WAIT_MS });
  await page.getByRole('button', { name: 'Approve…' }).click({ timeout: WAIT_MS });
  const dialog = page.getByRole('dialog');
  await dialog
    .getByRole('heading', { name: `Approve render ${ref.slice(7, 19)}` })
    .waitFor({ timeout: WAIT_MS });
  await dialog.getByRole('button', { name: 'Approve and apply' }).click();
  await waitFor(
    `${name}: the approved render in status.history`,
    async () => (await getRelease(client, NS, name))?.status?.history?.at(-1)?.renderRef === ref,
    { timeoutMs: WAIT_MS },
  );
  return ref;
}

test("a user's request is recorded with the render it applied; a later user action relabels it not", async () => {
  const client = cluster?.client;
  assert.ok(client);
  await page.getByRole('link', { name: 'Releases' }).click();
  await client.create(
    inlineRelease(NS, 'cart', [configMap('cart', 0, { v: '1' })], { syncPolicy: { mode: 'Manual' } }),
  );
  await page.locator(`tr[data-release="${NS}/cart"] a`).click({ timeout: WAIT_MS });
  await page.getByRole('heading', { level: 1, name: `Release ${NS}/cart` }).waitFor({ timeout: WAIT_MS });
  const first = await approveInPage('cart');
  const recorded = (await getRelease(client, NS, 'cart'))?.status?.history?.[0];
  assert.equal(recorded?.renderRef, first);
  assert.equal(recorded?.trigger?.kind, 'Approval');
  const user = recorded?.trigger?.by?.replace(/^user:/, '') ?? '';
  assert.match(recorded?.trigger?.by ?? '', /^user:./, 'who approved, as the API authenticated them');

  // Later: the source changes and the user approves its render — a newer action by the same user.
  await mergePatch(client, releaseRef(NS, 'cart'), {
    spec: { source: { inline: { manifests: manifests([configMap('cart', 0, { v: '2' })]) } } },
  });
  const second = await approveInPage('cart');
  // The first entry is exactly as it was recorded; the second is its own approval.
  const history = (await getRelease(client, NS, 'cart'))?.status?.history ?? [];
  assert.deepEqual(history[0], recorded);
  assert.equal(history.length, 2);
  assert.deepEqual(
    [history[1]?.renderRef, history[1]?.trigger],
    [second, { kind: 'Approval', by: `user:${user}` }],
  );
  // The API's history view and the page say so in the same words.
  const view = await client.request<{ history: { renderRef: string; triggeredBy: string }[] }>({
    method: 'GET',
    path: `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/releases/cart/history`,
  });
  assert.deepEqual(
    view.history.map((h) => h.triggeredBy),
    [`approved by ${user}`, `approved by ${user}`],
  );
  const renders = page.locator('ol.timeline li[data-kind="render"]');
  await renders.nth(1).waitFor({ timeout: WAIT_MS });
  await waitFor('the page to show both renders', async () => (await renders.count()) === 2, {
    timeoutMs: WAIT_MS,
  });
  assert.equal(
    await renders.nth(1).locator('[data-trigger="requested"]').innerText(),
    `triggered by: approved by ${user}`,
  );
  assert.equal(
    await renders.nth(0).locator('[data-trigger="requested"]').innerText(),
    `triggered by: approved by ${user}`,
  );
});
