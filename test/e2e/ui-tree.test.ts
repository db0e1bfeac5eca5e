// The resource tree of a Release page in a real browser, on a control plane whose kwok nodes run
// workloads (kube-controller-manager makes the ReplicaSet, kwok the Pod): the guestbook-like
// Deployment of the render reaches its Pod through its ReplicaSet, each with its live state, and a
// Pod held unready says so; a node's live manifest and Events are a click away. axe-core finds no
// serious violation in light or dark. A Pod's node shows its container's log (kwok serves the lines of
// the control plane's podLogsFile through pods/log), and a line appended while Follow is on appears.
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { KubeClient } from '../../src/kube/client.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { criLogLine } from '../../src/testenv/stages.ts';
import { configMap, deployment, inlineRelease } from '../support/hooks.ts';
import { DEFAULT_HEALTH } from '../support/system.ts';
import { SCREENSHOTS, violationsLightAndDark } from '../support/ui.ts';
import { startUiCluster } from '../support/ui-stack.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'ui-tree';
const WAIT_MS = 90_000;

let ui: Awaited<ReturnType<typeof startUiCluster>> | undefined;
let client: KubeClient;
let page: Page;

before(async () => {
  ui = await startUiCluster('ui-tree', NS, { workloads: true, nodes: 1 });
  client = ui.cluster.client;
  ({ page } = ui.stack);
});

after(async () => {
  await ui?.stop();
});

test("the resource tree reaches the Deployment's Pod through its ReplicaSet, with live states", async () => {
  await client.create(
    inlineRelease(
      NS,
      'guestbook',
      [
        configMap('settings'),
        deployment('web', 1),
        deployment('stuck', 1, {}, { [TEST_LABEL_NEVER_READY]: 'true' }),
      ],
      { healthAssessment: DEFAULT_HEALTH },
    ),
  );
  await page.locator(`tr[data-release="${NS}/guestbook"] a`).click({ timeout: WAIT_MS });
  await page
    .getByRole('heading', { level: 1, name: `Release ${NS}/guestbook` })
    .waitFor({ timeout: WAIT_MS });
  const tree = page.getByTestId('tree');
  const pod = (name: string) =>
    tree.locator(
      `li[data-node="Deployment.apps/${name}"] li[data-node^="ReplicaSet/${name}-"] li[data-node^="Pod/${name}-"]`,
    );
  // The tree is read again as the Release's health moves: the Pods appear without a reload.
  // Throws with what the tree shows while it does not show both Pods, so a timeout says why.
  await waitFor(
    'the tree to show both Pods and the ConfigMap with their states',
    async () => {
      const web = await pod('web').locator('> .node .badge').allInnerTexts();
      const stuck = await pod('stuck').locator('> .node .badge').allInnerTexts();
      const settings = await tree
        .locator('li[data-node="ConfigMap/settings"] > .node .badge')
        .allInnerTexts();
      if (web[0] === 'Healthy' && stuck[0] === 'Progressing' && settings[0] === 'Healthy') return true;
      throw new Error(`the tree shows:\n${await tree.innerText()}`);
    },
    { timeoutMs: WAIT_MS },
  );
  assert.match(
    await tree.locator('li[data-node^="ReplicaSet/web-"] > .node').first().innerText(),
    /1 of 1 ready/,
  );
  // A node's live manifest (no managedFields) and its Kubernetes Events, as this user reads them.
  await tree
    .locator('li[data-node="Deployment.apps/web"] > .node')
    .getByRole('button', { name: 'manifest and Events of Deployment.apps web' })
    .click();
  const shown = page.getByTestId('live-object');
  const manifest = shown.getByTestId('manifest');
  await manifest.waitFor({ timeout: WAIT_MS });
  const yaml = await manifest.innerText();
  assert.match(yaml, /^kind: Deployment$/m);
  assert.match(yaml, /^ {2}name: web$/m);
  assert.doesNotMatch(yaml, /managedFields/);
  await shown
    .getByTestId('events')
    .locator('td', { hasText: 'ScalingReplicaSet' })
    .first()
    .waitFor({ timeout: WAIT_MS });
  const v = await violationsLightAndDark(page, 'release-tree');
  assert.deepEqual(v, [], `axe: ${JSON.stringify(v, null, 2)}`);
});

test("a Pod's node shows its container's log, and a followed log shows a new line", async () => {
  const podLogsFile = ui?.cluster.cp.podLogsFile;
  assert.ok(podLogsFile, 'the control plane runs workloads');
  const tree = page.getByTestId('tree');
  await tree
    .locator('li[data-node^="Pod/web-"] > .node')
    .getByRole('button', { name: /^manifest and Events of Pod web-/ })
    .click({ timeout: WAIT_MS });
  const logs = page.getByTestId('pod-logs');
  const lines = logs.getByTestId('log-lines');
  await lines.filter({ hasText: 'ready: accepting connections' }).waitFor({ timeout: WAIT_MS });
  assert.equal(await logs.getByRole('combobox', { name: /^Container/ }).inputValue(), 'main');
  assert.match((await lines.getAttribute('aria-label')) ?? '', /^logs of ui-tree\/web-.+, container main$/);
  // A line written after the page read the log shows only through Follow.
  await logs.getByRole('checkbox', { name: /Follow/ }).check();
  const line = `GET /cart 200 ${Date.now()}`;
  await appendFile(podLogsFile, criLogLine(new Date(), line));
  await lines.filter({ hasText: line }).waitFor({ timeout: WAIT_MS });
  const v = await violationsLightAndDark(page, 'release-pod-logs');
  assert.deepEqual(v, [], `axe: ${JSON.stringify(v, null, 2)}`);
  // The Pod's panel alone, for docs/ui.md.
  await page.getByTestId('live-object').screenshot({ path: join(SCREENSHOTS, 'pod-logs.png') });
});
