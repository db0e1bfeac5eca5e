// The timeline's facts on a real control plane, with the observer run as deploy/'s ServiceAccount
// convoy-observer: when a hook finishes it wakes the controller through convoy's API (POST /sync, as
// itself), which stamps sync-requested-by with its name. The page shows that as the observer waking
// the controller, never as someone's request nor as what triggered a render.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { API_REQUEST_ANNOTATIONS } from '../../src/api/constants.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { installAs } from '../support/deploy-install.ts';
import { configMap, hookJob, inlineRelease } from '../support/hooks.ts';
import { getRelease } from '../support/release.ts';
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
