// The Releases list past one page, on a real control plane: more Releases than a page holds (their
// statuses written through the status subresource, as the controller would; no convoy process needed
// for the list). The page shows one page of rows, sort, filter and search run over all of them, and
// the page, sort and filter are in the address, so a link or Back shows the same rows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { createSyncedReleases } from '../support/release.ts';
import { launchBrowser, startUi, type UiProcess, violationsLightAndDark } from '../support/ui.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'ui-pages';
/** One more page than the list's PAGE_SIZE (200) holds, and a part of the next. */
const N = 230;
const WAIT_MS = 60_000;
const names = Array.from({ length: N }, (_, i) => `r${String(i).padStart(3, '0')}`);

let cluster: CrdCluster | undefined;
let ui: UiProcess | undefined;
let browser: Browser | undefined;
let page: Page;

before(async () => {
  cluster = await startCrdCluster({ namespaces: [NS] });
  await createSyncedReleases(cluster.client, NS, names, 8);
  ui = await startUi(['--kubeconfig', cluster.cp.kubeconfigPath]);
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(ui.url);
});

after(async () => {
  await browser?.close();
  await ui?.stop();
  await cluster?.stop();
});

const shown = async () =>
  await page.locator('tr[data-release]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-release')));
const key = (i: number) => `${NS}/${names[i]}`;
const pager = () => page.getByTestId('page');
const query = () => new URL(page.url()).searchParams;

test('one page of rows at a time; sort, search and the page are in the address and survive Back', async () => {
  await pager().waitFor({ timeout: WAIT_MS });
  await waitFor(
    'every Release in the list',
    async () => (await pager().innerText()).endsWith(`of ${N} (page 1 of 2)`),
    {
      timeoutMs: WAIT_MS,
    },
  );
  assert.equal(await pager().innerText(), `Releases 1–200 of ${N} (page 1 of 2)`);
  const first = await shown();
  assert.deepEqual(
    first,
    names.slice(0, 200).map((_, i) => key(i)),
  );
  assert.match(await page.locator('.filters .count').innerText(), new RegExp(`^${N} of ${N} Releases$`));

  // The next page: the rest, in the same order, and the page in the address.
  await page.getByRole('button', { name: 'Next page' }).click();
  await waitFor('page 2', async () => (await shown())[0] === key(200), { timeoutMs: WAIT_MS });
  assert.deepEqual(
    await shown(),
    names.slice(200).map((_, i) => key(200 + i)),
  );
  assert.equal(query().get('page'), '2');
  assert.ok(await page.getByRole('button', { name: 'Next page' }).isDisabled());
  const v = await violationsLightAndDark(page, 'releases-page-2');
  assert.deepEqual(v, [], `axe: ${JSON.stringify(v, null, 2)}`);

  // To a Release of page 2 and Back: the same page.
  await page.locator(`tr[data-release="${key(215)}"] a`).click();
  await page.getByRole('heading', { level: 1, name: `Release ${key(215)}` }).waitFor({ timeout: WAIT_MS });
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Releases' }).waitFor({ timeout: WAIT_MS });
  await waitFor('page 2 after Back', async () => (await shown())[0] === key(200), { timeoutMs: WAIT_MS });
  assert.equal((await shown()).length, N - 200);

  // A new order starts at the first page and sorts every row, not just the page's.
  await page.locator('th button[data-sort="name"]').click(); // the default, ascending → descending
  await waitFor('sorted descending', async () => (await shown())[0] === key(N - 1), { timeoutMs: WAIT_MS });
  assert.deepEqual(
    await shown(),
    names
      .slice(N - 200)
      .reverse()
      .map((_, i) => key(N - 1 - i)),
  );
  assert.equal(query().get('dir'), 'desc');
  assert.equal(query().get('page'), null, 'back on the first page');

  // A search runs over every row too: one page, no pager.
  await page.getByRole('searchbox', { name: /^Search/ }).fill('r22');
  await waitFor('the search', async () => (await shown()).length === 10, { timeoutMs: WAIT_MS });
  assert.deepEqual(
    await shown(),
    [...Array(10).keys()].map((i) => key(229 - i)),
  );
  assert.equal(await pager().count(), 0);
  assert.equal(query().get('q'), 'r22');

  // The address alone shows the same rows: a link opened anew.
  await page.goto(`${new URL(page.url()).origin}/?sort=name&dir=desc&page=2`);
  await waitFor('page 2 of the descending order', async () => (await shown())[0] === key(N - 201), {
    timeoutMs: WAIT_MS,
  });
  assert.equal((await shown()).length, N - 200);
  assert.equal(await pager().innerText(), `Releases 201–${N} of ${N} (page 2 of 2)`);
});
