// npm run bench:ui — the web UI with 1,000 Releases on a local control plane (statuses written through
// the status subresource, as the controller would; no convoy process needed for the list): the time
// from navigation to the Releases page showing its first page of rows with all BENCH_RELEASES counted
// (first render, median of BENCH_RUNS loads, default 5), and the delay from a status change in the API (the PUT's answer) to the page showing it
// (BENCH_CHANGES changes, default 20: median, p95, max). `convoy ui` runs in this process with the
// admin kubeconfig; the browser is Debian's Chromium driven by playwright-core. Before the page, the wall
// time of `convoy get -A` over the same Releases (bin/convoy in a child process, median and max of
// BENCH_RUNS).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_VERSION } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import { serveUi } from '../src/cli/commands/ui.ts';
import { makeCtx } from '../src/cli/context.ts';
import { KubeClient } from '../src/kube/client.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import { createSyncedReleases, syncedStatus } from '../test/support/release.ts';
import { launchBrowser } from '../test/support/ui.ts';

const N = Number(process.env.BENCH_RELEASES ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
const NS = 'bench';
/** The rows on one page of the list (PAGE_SIZE in src/ui/web/app.js). */
const PAGE = Math.min(N, 200);

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const pct = (xs: readonly number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

/** Wall seconds of `convoy get -A` as a user runs it (bin/convoy), and the Releases it listed. */
async function getAll(kubeconfig: string): Promise<{ ms: number; rows: number }> {
  const start = performance.now();
  const { stdout } = await promisify(execFile)(
    fileURLToPath(new URL('../bin/convoy', import.meta.url)),
    ['get', '-A', '--kubeconfig', kubeconfig],
    { timeout: 120_000, killSignal: 'SIGKILL', maxBuffer: 256 * 2 ** 20 },
  );
  return { ms: performance.now() - start, rows: stdout.trimEnd().split('\n').length - 1 };
}

const cp = await startControlPlane({});
try {
  await installCrds(cp.kubeConfig);
  const client = new KubeClient(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const names = Array.from({ length: N }, (_, i) => `r${String(i).padStart(4, '0')}`);
  const t0 = performance.now();
  await createSyncedReleases(client, NS, names, 16);
  process.stdout.write(
    `bench:ui: ${N} Releases with statuses created in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );

  const gets: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { ms, rows } = await getAll(cp.kubeconfigPath);
    if (rows !== N) throw new Error(`convoy get -A listed ${rows} Releases of ${N}`);
    gets.push(ms);
  }
  process.stdout.write(
    `bench:ui: convoy get -A (${N} rows): median ${median(gets).toFixed(0)} ms, max ${Math.max(...gets).toFixed(0)} ms (${RUNS} runs; target ≤ 1500 ms)\n`,
  );

  const ctx = await makeCtx(
    { kubeconfig: cp.kubeconfigPath, allNamespaces: true, output: 'table' },
    {
      out: process.stdout,
      err: process.stderr,
      stdin: process.stdin,
      env: process.env,
      now: () => new Date(),
    },
  );
  const ui = await serveUi(ctx, 0);
  await ui.live.synced(60_000);
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const loads: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      await page.goto(run === 0 ? ui.url : `${new URL(ui.url).origin}/`);
      // The first page's rows, and the count that says every Release was read, sorted and filtered.
      await page.waitForFunction(
        `document.querySelectorAll('tr[data-release]').length >= ${PAGE} &&
          document.querySelector('.filters .count')?.textContent === '${N} of ${N} Releases'`,
        undefined,
        { timeout: 60_000, polling: 'raf' },
      );
      loads.push(performance.now() - start);
    }
    // Status changes: the page stamps the time a row shows the new message; the bench the time the API
    // answered the write. Both clocks are this machine's (performance.timeOrigin + now in the page).
    await page.evaluate(`(() => {
      globalThis.shown = {};
      new MutationObserver(() => {
        for (const td of document.querySelectorAll('td.msg')) {
          const m = /^change (\\d+)$/.exec(td.textContent);
          if (m && globalThis.shown[m[1]] === undefined) globalThis.shown[m[1]] = performance.timeOrigin + performance.now();
        }
      }).observe(document.querySelector('tbody'), { subtree: true, childList: true, characterData: true });
    })()`);
    const delays: number[] = [];
    for (let c = 0; c < CHANGES; c++) {
      const i = (c * 37) % PAGE; // a row of the first page, where the page shows it
      const name = names[i] ?? 'r0000';
      const ref = { apiVersion: API_VERSION, kind: 'Release', namespace: NS, name };
      const r = await client.get<Release>(ref);
      if (r === undefined) throw new Error(`${name} is gone`);
      await client.request({
        method: 'PUT',
        path: `${await client.pathOf(ref)}/status`,
        body: { ...r, status: syncedStatus(i, `change ${c}`) },
      });
      const written = performance.timeOrigin + performance.now();
      await page.waitForFunction(`globalThis.shown[${c}] !== undefined`, undefined, { timeout: 10_000 });
      const shown = (await page.evaluate(`globalThis.shown[${c}]`)) as number;
      delays.push(Math.max(0, shown - written));
    }
    const f = (ms: number) => `${ms.toFixed(0)} ms`;
    process.stdout.write(
      [
        `bench:ui: Releases page, first render (${PAGE} rows shown of ${N}): median ${f(median(loads))}, max ${f(Math.max(...loads))} (${RUNS} loads; the first includes the session redirect)`,
        `bench:ui: status change in the API → shown on the page: median ${f(median(delays))}, p95 ${f(pct(delays, 0.95))}, max ${f(Math.max(...delays))} (${CHANGES} changes; target < 1000 ms)`,
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
    await ui.close();
  }
} finally {
  await cp.stop();
}
