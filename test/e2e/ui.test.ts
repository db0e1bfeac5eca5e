// The web UI in a real browser (Debian's Chromium driven by playwright-core) against the real control
// plane with both convoy processes and the aggregated API: `convoy ui` run with a kubeconfig, as a user
// would. The list shows a new Release without a reload; a rollout's waves and objects advance live on
// its page; a broken change counts down to its rollback, rolls back at that time and the page shows
// RolledBack with its reason and the ConfigMap diff one line per line, offers no Rollback that would
// only pin it and warns before an Unpin; the list sorts, filters and counts, and Back restores them; a
// Manual Release awaits approval in one calm state everywhere and is approved after its diff; a user
// without create releases/sync is told which permission is missing; at 390 px nothing hides; a killed
// controller-manager gets a banner. Screenshots (light and dark) go to test-output/ui/; axe-core finds
// no serious violation in either scheme.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { shortRevision } from '../../src/api/revision.ts';
import type { Release } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { renderKubeconfig } from '../../src/testenv/kubeconfig.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { configMap, deployment, inlineRelease, type Manifest, manifests } from '../support/hooks.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { bindViewer, serviceAccountToken, waitForAccess } from '../support/rbac.ts';
import { getRelease, mergePatch, releaseRef } from '../support/release.ts';
import { DEFAULT_HEALTH } from '../support/system.ts';
import { screenshot, startUi, type UiProcess, violationsLightAndDark } from '../support/ui.ts';
import { startUiStack, type UiStack } from '../support/ui-stack.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'ui';
const UI_WAIT_MS = 60_000;

let cluster: CrdCluster | undefined;
let cp: ControlPlane;
let client: KubeClient;
let stack: UiStack | undefined;
let manager: ManagerProcess;
let ui: UiProcess;
let browser: Browser;
let page: Page;

const spec = (extra: Partial<Release['spec']> = {}): Partial<Release['spec']> => ({
  healthAssessment: DEFAULT_HEALTH,
  failurePolicy: { deadline: '2m' },
  ...extra,
});
/** A Release `name` of namespace NS: `objs` inline, assessed by the default rules, spec(`extra`). */
const createRelease = (name: string, objs: readonly Manifest[], extra: Partial<Release['spec']> = {}) =>
  client.create(inlineRelease(NS, name, objs, spec(extra)));

before(async () => {
  cluster = await startCrdCluster({
    aggregation: true,
    namespaces: ['convoy-system', NS],
    scratch: 'convoy-ui-e2e-',
  });
  ({ cp, client } = cluster);
  stack = await startUiStack(cluster, 'ui');
  ({ manager, ui, browser, page } = stack);
});

after(async () => {
  await stack?.stop();
  await cluster?.stop();
});

/** Screenshots of the page in light and dark, and no serious axe-core violation in either. */
const accessible = async (p: Page, name: string) => {
  const v = await violationsLightAndDark(p, name);
  assert.deepEqual(v, [], `axe: ${JSON.stringify(v, null, 2)}`);
};
/** `s` as a regular expression that matches it literally. */
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const row = (p: Page, name: string) => p.locator(`tr[data-release="${NS}/${name}"]`);
const openRelease = async (p: Page, name: string) => {
  await p.locator(`tr[data-release="${NS}/${name}"] a`).click();
  await p.getByRole('heading', { level: 1, name: `Release ${NS}/${name}` }).waitFor({ timeout: UI_WAIT_MS });
};
/**
 * The lines a diff shows, as a user reads them (innerText), checked to be one rendered line element
 * each: a line that ran into the next would make the two counts differ.
 */
const diffLines = async (diff: Locator): Promise<string[]> => {
  const lines = (await diff.innerText()).replace(/\n$/, '').split('\n');
  const elements = await diff.locator('.d-line').allInnerTexts();
  assert.equal(lines.length, elements.length, `one line per line element:\n${lines.join('\n')}`);
  assert.deepEqual(
    lines.map((l) => l.trimEnd()),
    elements.map((l) => l.trimEnd()),
  );
  return lines;
};
const home = async (p: Page) => {
  await p.getByRole('link', { name: 'Releases' }).click();
  await p.getByRole('heading', { level: 1, name: 'Releases' }).waitFor();
};

test('the Releases list shows a new Release without a reload, with READY and its revision', async () => {
  await page.getByRole('heading', { level: 1, name: 'Releases' }).waitFor({ timeout: UI_WAIT_MS });
  await page.evaluate(() => {
    (globalThis as { notReloaded?: boolean }).notReloaded = true;
  });
  await createRelease('hello', [configMap('hello')]);
  const r = row(page, 'hello');
  await r.waitFor({ timeout: UI_WAIT_MS });
  await r.locator('td[data-col=state]', { hasText: 'Ready' }).waitFor({ timeout: UI_WAIT_MS });
  const release = await getRelease(client, NS, 'hello');
  assert.match(await r.innerText(), new RegExp(release?.status?.revision ?? 'inline:'));
  assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true);
  await accessible(page, 'releases');
});

test("a rollout's waves and objects advance live on the Release page", async () => {
  await home(page); // from the list, whatever page an earlier test left open
  await createRelease('waves', [configMap('w0', 0)]);
  await row(page, 'waves')
    .locator('td[data-col=state]', { hasText: 'Ready' })
    .waitFor({ timeout: UI_WAIT_MS });
  await openRelease(page, 'waves');
  // Every text the progress line shows from now on, recorded in the page as it changes.
  // (a string: the test is compiled without the DOM's types)
  await page.evaluate(`(() => {
    const el = document.querySelector('[data-testid="progress"]');
    if (el === null) throw new Error('no progress line');
    globalThis.seen = [];
    globalThis.notReloaded = true;
    new MutationObserver(() => globalThis.seen.push(el.textContent)).observe(document.body, {
      subtree: true, childList: true, characterData: true,
    });
  })()`);
  // Wave 1 is a Deployment: no kube-controller-manager runs here, so it stays unavailable (and the
  // rollout Progressing) until this test writes its status — the page is seen mid-rollout however fast
  // convoy is.
  await mergePatch(client, releaseRef(NS, 'waves'), {
    spec: {
      source: {
        inline: { manifests: manifests([configMap('w0', 0), deployment('w1', 1), configMap('w2', 2)]) },
      },
    },
  });
  const progress = page.getByTestId('progress');
  // Throws with the line's text while it does not match, so a timeout says what the page showed.
  const progressMatches = async (re: RegExp) => {
    const text = await progress.innerText();
    if (!re.test(text)) throw new Error(`progress line: ${text}`);
    return true;
  };
  await waitFor(
    'the page to show the rollout Progressing, held at wave 1 (the Deployment)',
    () => progressMatches(/Progressing.*waves 2\/3 \(at wave 1\)/),
    { timeoutMs: UI_WAIT_MS },
  );
  await mergePatch(
    client,
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'w1' },
    {
      status: {
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
    },
    'status',
  );
  await waitFor(
    'the page to show the 3-wave rollout Succeeded',
    () => progressMatches(/Succeeded.*waves 3\/3.*objects 3\/3 healthy/),
    { timeoutMs: UI_WAIT_MS },
  );
  const seen = await page.evaluate(() => (globalThis as { seen?: string[] }).seen ?? []);
  assert.ok(
    seen.some((s) => /Progressing/.test(s)),
    `the page showed the rollout while it progressed: ${JSON.stringify([...new Set(seen)])}`,
  );
  assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true);
  assert.equal(await page.locator('li[data-wave]').count(), 3);
  assert.equal(await page.locator('tr[data-object^="ConfigMap/"]').count(), 2);
  assert.equal(await page.locator('tr[data-object="Deployment/w1"]').count(), 1);
  await accessible(page, 'release-waves');
});

test('a broken change rolls back: RolledBack with its reason on the page, and the ConfigMap diff of the bad render', async () => {
  await home(page); // from the list, whatever page an earlier test left open
  await createRelease('broken', [configMap('settings', 0, { color: 'blue' })], {
    failurePolicy: { deadline: '15s' },
  });
  await row(page, 'broken')
    .locator('td[data-col=state]', { hasText: 'Ready' })
    .waitFor({ timeout: UI_WAIT_MS });
  await openRelease(page, 'broken');
  const good = (await getRelease(client, NS, 'broken'))?.status?.lastHealthy;
  assert.ok(good, 'the first render is healthy');
  // No kube-controller-manager runs here: the Deployment never becomes available.
  await mergePatch(client, releaseRef(NS, 'broken'), {
    spec: {
      source: {
        inline: { manifests: manifests([configMap('settings', 0, { color: 'red' }), deployment('web', 1)]) },
      },
    },
  });
  // While it progresses the header says what happens and when: the rollback to the last healthy
  // revision at startedAt + deadline, unless every object is Healthy.
  const countdown = page.getByTestId('countdown');
  await countdown.locator('time').waitFor({ timeout: UI_WAIT_MS });
  assert.match(
    await countdown.innerText(),
    new RegExp(
      `rolls back to revision ${literal(shortRevision(good.revision))} at \\d\\d:\\d\\d:\\d\\d \\(in \\d+ s\\) unless every object is Healthy\\.`,
    ),
  );
  const deadline = Date.parse((await countdown.locator('time').getAttribute('datetime')) ?? '');
  await screenshot(page, 'release-countdown');
  await page
    .getByTestId('state')
    .filter({ hasText: /^RolledBack/ })
    .waitFor({ timeout: UI_WAIT_MS });
  assert.equal(await countdown.count(), 0, 'no countdown once it rolled back');
  // It rolled back at the time the page said: not before the deadline, and soon after it.
  const finished = Date.parse((await getRelease(client, NS, 'broken'))?.status?.rollout?.finishedAt ?? '');
  assert.ok(finished >= deadline - 1000, `rolled back at ${finished}, the deadline was ${deadline}`);
  assert.ok(finished - deadline < 15_000, `rolled back ${finished - deadline} ms after the deadline`);
  console.log(
    `# rolled back ${((finished - deadline) / 1000).toFixed(1)} s after the deadline the page showed`,
  );
  const rolledBack = page.locator('ol.timeline li[data-kind="rollout"]');
  await rolledBack.waitFor({ timeout: UI_WAIT_MS });
  const text = await rolledBack.innerText();
  const ro = (await getRelease(client, NS, 'broken'))?.status?.rollout;
  assert.equal(ro?.state, 'RolledBack');
  assert.match(text, /rolled back/);
  assert.match(text, new RegExp(`reason: ${ro?.reason ?? '?'}`));
  assert.match(text, /deadline:/);
  // Who or what triggered it: the automatic rollback, with its reason and the revision it went back
  // to; the bad render before it a change of spec.source.
  const trigger = await rolledBack.locator('[data-trigger="rollback"]').innerText();
  const lh = (await getRelease(client, NS, 'broken'))?.status?.lastHealthy;
  assert.ok(lh, 'the broken Release has a last healthy render');
  assert.ok(
    trigger.includes(
      `automatic rollback (failurePolicy) after ${ro?.reason}, to the last healthy revision ${shortRevision(lh.revision)}`,
    ),
    trigger,
  );
  assert.ok(
    (await page.locator('ol.timeline li[data-kind="render"] [data-trigger="source"]').count()) >= 1,
    'the bad render: a source change',
  );
  await page.getByRole('button', { name: `Diff render ${(ro?.renderRef ?? '').slice(7, 19)}` }).click();
  const diff = page.getByTestId('diff');
  await diff.waitFor({ timeout: UI_WAIT_MS });
  const lines = await diffLines(diff);
  assert.ok(
    lines.some((l) => /ConfigMap.*settings/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /^-\s+color: blue$/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /^\+\s+color: red$/.test(l)),
    lines.join('\n'),
  );
  // The summary is a line of its own, not glued to the last unchanged line.
  assert.match(lines.at(-1) ?? '', /^\d+ changed, \d+ unchanged, \d+ to prune/);
  await accessible(page, 'release-rolled-back');
  // Rolled back already: a Rollback would only pin the render running now, and the page says so.
  const rollback = page.getByRole('button', { name: 'Rollback', exact: true });
  assert.equal(await rollback.isDisabled(), true);
  assert.match(
    await page.getByTestId('rollback-why').innerText(),
    new RegExp(
      `revision ${literal(shortRevision(lh.revision))}\\) is the last healthy one \\(convoy already rolled back to it\\): a rollback would only pin it`,
    ),
  );
  // Pin the last healthy render from the history: the dialog names the action, the result offers its undo.
  await page.getByRole('button', { name: `Pin ${lh.renderRef.slice(7, 19)}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: `Pin render ${lh.renderRef.slice(7, 19)}` }).waitFor();
  await dialog.getByRole('button', { name: 'Pin', exact: true }).click();
  await page.getByText(`Pinned render ${lh.renderRef.slice(7, 19)}.`).waitFor({ timeout: UI_WAIT_MS });
  await page.getByRole('button', { name: 'Undo: Unpin' }).click();
  // Unpin now would re-apply the render that just rolled back: the dialog warns, with when and why.
  await dialog.getByRole('heading', { name: 'Unpin and follow the source' }).waitFor();
  const warning = dialog.getByTestId('unpin-warning');
  await warning.waitFor({ timeout: UI_WAIT_MS });
  assert.match(
    await warning.innerText(),
    new RegExp(
      `re-applies the\\s+source's render. Its last one, revision\\s+${literal(shortRevision(ro?.revision ?? '?'))}\\s+\\(render\\s+${(ro?.renderRef ?? '').slice(7, 19)}\\), rolled back at \\d\\d:\\d\\d:\\d\\d \\(\\d+ (s|min) ago\\) after ${ro?.reason}`,
    ),
  );
  await accessible(page, 'unpin-warning');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
});

test('the list sorts, filters and counts per state, and Back restores the sort and the filter', async () => {
  await home(page);
  // The test above pinned the rolled-back Release to its last healthy render: Ready, and pinned.
  await row(page, 'broken')
    .locator('td[data-col=state]', { hasText: /Ready\s+pinned/ })
    .waitFor({ timeout: UI_WAIT_MS });
  // Counts per state: each chip counts the rows in that state.
  const states = await page.locator('tr[data-release] td[data-col=state] .badge:first-child').allInnerTexts();
  const ready = states.filter((x) => x === 'Ready').length;
  assert.ok(ready >= 2, `at least two Ready Releases: ${states.join(', ')}`);
  for (const st of new Set(states)) {
    assert.equal(
      await page.locator(`.counts [data-state="${st}"] strong`).innerText(),
      String(states.filter((x) => x === st).length),
      `the count of ${st}`,
    );
  }
  // Filter to Ready, sort by name descending: both go into the address.
  await page.getByRole('combobox', { name: /^State/ }).selectOption('Ready');
  await page.locator('th button[data-sort="name"]').click(); // name is the default: ascending → descending
  await page.locator('th[aria-sort="descending"] button[data-sort="name"]').waitFor();
  const names = async () =>
    await page.locator('tr[data-release]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-release')));
  const before = await names();
  assert.equal(before.length, ready);
  assert.deepEqual(before, [...before].sort().reverse(), 'sorted by name, descending');
  assert.match(page.url(), /[?&]state=Ready/);
  assert.match(page.url(), /[?&]dir=desc/);
  await accessible(page, 'releases-filtered');
  // To a Release and Back: the same filter, order and rows.
  const first = before[0]?.split('/')[1] ?? '';
  await openRelease(page, first);
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Releases' }).waitFor();
  await page.locator('th[aria-sort="descending"] button[data-sort="name"]').waitFor();
  assert.equal(await page.getByRole('combobox', { name: /^State/ }).inputValue(), 'Ready');
  await waitFor('the rows of the list after Back', async () => (await names()).length === before.length);
  assert.deepEqual(await names(), before);
  // The Age and Last change columns say how long ago, the absolute time on hover.
  const age = page.locator(`tr[data-release="${before[0]}"] td[data-col=age] time`);
  assert.match(await age.innerText(), /^\d+ (s|min|h|d) ago$/);
  assert.match((await age.getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  // Clear the filter for the tests that follow.
  await page.getByRole('combobox', { name: /^State/ }).selectOption('');
});

test('approve in Manual mode: the diff first, then the render is applied', async () => {
  await home(page); // from the list, whatever page an earlier test left open
  await createRelease('manual', [configMap('gated', 0, { v: '1' })], { syncPolicy: { mode: 'Manual' } });
  await row(page, 'manual').waitFor({ timeout: UI_WAIT_MS });
  await waitFor('the controller to render the Manual Release', async () => {
    const r = await getRelease(client, NS, 'manual');
    return r?.status?.currentRender !== undefined;
  });
  // Only awaiting approval: its own calm state, not a red failure, and the same word in the list,
  // on the page, in `convoy get` and in the API's health view (one function derives it).
  const state = row(page, 'manual').locator('td[data-col=state] .badge').first();
  await row(page, 'manual')
    .locator('td[data-col=state]', { hasText: 'AwaitingApproval' })
    .waitFor({ timeout: UI_WAIT_MS });
  assert.match((await state.getAttribute('class')) ?? '', /s-calm/);
  const get = await runConvoy(['get', 'manual', '-n', NS, '--kubeconfig', cp.kubeconfigPath]);
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /^manual +AwaitingApproval +/m);
  const health = await client.request<{ state: { state: string; tone: string } }>({
    method: 'GET',
    path: `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/releases/manual/health`,
  });
  assert.deepEqual([health.state.state, health.state.tone], ['AwaitingApproval', 'calm']);
  await openRelease(page, 'manual');
  assert.match(await page.getByTestId('state').innerText(), /^AwaitingApproval/);
  await page.getByRole('button', { name: 'Approve…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('diff').waitFor({ timeout: UI_WAIT_MS });
  const approveLines = await diffLines(dialog.getByTestId('diff'));
  assert.ok(
    approveLines.some((l) => /ConfigMap.*gated/.test(l)),
    approveLines.join('\n'),
  );
  assert.match(approveLines.at(-1) ?? '', /^\d+ changed, \d+ unchanged, \d+ to prune/);
  await accessible(page, 'approve-diff');
  // The dialog names the action and its button says what it does.
  const ref = (await getRelease(client, NS, 'manual'))?.status?.currentRender?.renderRef ?? '';
  await dialog.getByRole('heading', { name: `Approve render ${ref.slice(7, 19)}` }).waitFor();
  await dialog.getByRole('button', { name: 'Approve and apply' }).click();
  await page
    .getByText(`Approved render ${ref.slice(7, 19)}: the controller applies it now.`)
    .waitFor({ timeout: UI_WAIT_MS });
  await page
    .locator('ol.timeline li[data-kind="render"] [data-trigger="requested"]', {
      // "at <time>" only until the observer's wake-up restamps sync-requested-at (model.ts triggerOf)
      hasText: /approved by admin/,
    })
    .waitFor({ timeout: UI_WAIT_MS });
  await waitFor(
    'the approved render applied',
    async () =>
      (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'gated' })) !== undefined,
    { timeoutMs: UI_WAIT_MS },
  );
});

test('a user without create releases/sync is told which permission is missing before any click', async () => {
  await client.create({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'viewer', namespace: NS },
  });
  const token = await serviceAccountToken(client, NS, 'viewer');
  const viewer = `system:serviceaccount:${NS}:viewer`;
  await bindViewer(client, NS, 'viewer', ['releases', 'releaseinventories', 'clusters'], {
    resources: ['releases/health', 'releases/history'],
    verbs: ['get'],
  });
  await waitForAccess(client, 'the viewer may list Releases', {
    user: viewer,
    resourceAttributes: { verb: 'list', group: 'convoy.kumodo.io', resource: 'releases', namespace: NS },
  });
  const kubeconfig = join(cluster?.work ?? '', 'viewer.kubeconfig');
  await writeFile(kubeconfig, renderKubeconfig('viewer', { server: cp.server, caPem: cp.caPem, token }));
  const limited = await startUi(['--kubeconfig', kubeconfig, '-n', NS]);
  try {
    const p = await browser?.newPage({ viewport: { width: 420, height: 900 } });
    assert.ok(p);
    await p.goto(limited.url);
    await openRelease(p, 'hello');
    // The pre-check: before anything is clicked the page says which permission is missing, and does
    // not offer the actions that need it (the viewer may patch nothing either: both are named).
    const note = p.getByTestId('permission-precheck');
    await note.waitFor({ timeout: UI_WAIT_MS });
    assert.match(
      await note.innerText(),
      /Permission missing: you may not create\s+releases\/sync\s+\(API group api\.convoy\.kumodo\.io\) in namespace ui,\s+so Sync, Forced sync, Approve are not offered/,
    );
    assert.match(await note.innerText(), /you may not patch\s+releases\s+\(API group convoy\.kumodo\.io\)/);
    const sync = p.getByRole('button', { name: 'Sync', exact: true });
    assert.equal(await sync.isDisabled(), true);
    assert.equal(await sync.getAttribute('aria-describedby'), 'precheck');
    // The write itself is still refused by the API server, and the page's API says which permission.
    const refused = (await p.evaluate(`fetch('/api/releases/${NS}/hello/actions', {
      method: 'POST', headers: {'content-type': 'application/json', 'x-convoy-ui': '1'}, body: '{"kind":"sync"}',
    }).then(async (r) => ({ status: r.status, body: await r.json() }))`)) as {
      status: number;
      body: { kind: string; verb: string; resource: string; group: string };
    };
    assert.equal(refused.status, 403);
    assert.deepEqual(
      [refused.body.kind, refused.body.verb, refused.body.resource, refused.body.group],
      ['forbidden', 'create', 'releases/sync', 'api.convoy.kumodo.io'],
    );
    await accessible(p, 'permission-denied-narrow');
    await p.close();
  } finally {
    await limited.stop();
  }
});

test('only the session may use the server: no cookie 401, a write without X-Convoy-UI 403, a foreign Host 421', async () => {
  assert.ok(ui);
  const base = ui.origin;
  assert.equal((await fetch(`${base}/api/releases`)).status, 401);
  const login = await fetch(ui.url, { redirect: 'manual' });
  assert.equal(login.status, 303);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.match(cookie, /^convoy-ui=/);
  assert.match(login.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
  const list = await fetch(`${base}/api/releases`, { headers: { cookie } });
  assert.equal(list.status, 200);
  assert.ok(((await list.json()) as { rows: unknown[] }).rows.length > 0);
  const write = await fetch(`${base}/api/releases/${NS}/hello/actions`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: '{"kind":"sync"}',
  });
  assert.equal(write.status, 403);
  const bad = await fetch(`${base}/api/releases/${NS}/hello/actions`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', 'x-convoy-ui': '1' },
    body: '{"kind":"sync","force":true}',
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), { error: 'force: unknown field' });
  // fetch cannot forge Host; a raw request can
  const { request } = await import('node:http');
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const req = request(`${base}/api/releases`, { headers: { host: 'evil.example:80', cookie } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('error', reject);
    req.end();
  });
  assert.equal(status, 421);
});

test('on a phone (390 px) nothing is hidden or overflows; empty pages link to the docs; no focus ring on load', async () => {
  assert.ok(browser && ui);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const p = await context.newPage();
    await p.goto(ui.url);
    await p.getByRole('heading', { level: 1, name: 'Releases' }).waitFor({ timeout: UI_WAIT_MS });
    // The page's container takes focus for screen readers, without a ring around the whole page.
    assert.equal(await p.evaluate('document.activeElement?.id'), 'main');
    assert.equal(await p.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none');
    const waves = row(p, 'waves');
    await waves.waitFor({ timeout: UI_WAIT_MS });
    // Every column of a Release is on screen, as a card of label and value.
    const cells = waves.locator('td');
    assert.equal(await cells.count(), 10);
    for (const cell of await cells.all()) assert.equal(await cell.isVisible(), true, await cell.innerHTML());
    const overflow = () =>
      p.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.equal(await overflow(), 0, 'the list does not scroll sideways');
    await accessible(p, 'releases-phone');
    await openRelease(p, 'waves');
    assert.equal(await overflow(), 0, 'the Release page does not scroll sideways');
    await accessible(p, 'release-phone');
    // No Cluster here: the page says what it is for and links to the docs this UI serves.
    await p.getByRole('link', { name: 'Clusters' }).click();
    const empty = p.getByTestId('empty');
    await empty.waitFor({ timeout: UI_WAIT_MS });
    assert.match(await empty.innerText(), /convoy runs in\. Fleets shows how to add other clusters\.$/);
    const href = (await empty.getByRole('link', { name: 'Fleets' }).getAttribute('href')) ?? '';
    assert.equal(href, '/docs/fleets.md');
    const doc = (await p.evaluate(
      `fetch(${JSON.stringify(href)}).then(async (r) => [r.status, await r.text()])`,
    )) as [number, string];
    assert.equal(doc[0], 200);
    assert.match(doc[1], /^# /);
    await accessible(p, 'clusters-empty');
  } finally {
    await context.close();
  }
});

// Last: it stops the controller-manager the tests above need.
test('a banner says the controller-manager is not running within one lease duration of its crash', async () => {
  assert.ok(manager);
  await home(page);
  // Both processes run: the page knows (liveness sent) and shows no banner.
  await page.locator('main[data-liveness="known"]').waitFor({ timeout: UI_WAIT_MS });
  assert.equal(await page.getByTestId('down-convoy-controller-manager').count(), 0);
  const killed = Date.now();
  await manager.kill(); // SIGKILL: its Leases are not released, they lapse (5 s, test/support/processes.ts)
  const banner = page.getByTestId('down-convoy-controller-manager');
  // One lease duration (measured 3.9–5.4 s alone), plus what a machine running the whole suite on both
  // cores adds to the UI server's timer and the page's redraw: the figure is printed below.
  await banner.waitFor({ timeout: 5_000 + 10_000 });
  const seconds = (Date.now() - killed) / 1000;
  assert.match(
    await banner.innerText(),
    /^convoy-controller-manager not running since \d\d:\d\d:\d\d: nothing syncs or rolls back\./,
  );
  assert.equal(await page.getByTestId('down-convoy-observer').count(), 0, 'the observer still runs');
  console.log(`# banner ${seconds.toFixed(1)} s after the controller-manager was killed`);
  await accessible(page, 'controller-down');
});
