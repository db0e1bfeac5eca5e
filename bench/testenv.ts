// `npm run bench:testenv`: what the local control plane costs — the binaries' build, warm
// start times without and with workloads (median of 3), apiserver restart and stop times,
// and each process's peak RSS (VmHWM) read just before stopping.
import { readFileSync } from 'node:fs';
import { ensureBinaries, readBuildRecord } from '../src/testenv/build.ts';
import { type ControlPlane, type StartOptions, startControlPlane } from '../src/testenv/index.ts';

const RUNS = 3;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

const ms = (n: number): string => `${Math.round(n)} ms`;

function peakRssKiB(pid: number): number | undefined {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join(
    '\n',
  );
}

interface Sample {
  readonly startMs: number;
  readonly stopMs: number;
  readonly rss: ReadonlyMap<string, number | undefined>;
}

async function sample(binDir: string, opts: StartOptions, last: (cp: ControlPlane) => Promise<void>) {
  const started = performance.now();
  const cp = await startControlPlane({ ...opts, binDir });
  const startMs = performance.now() - started;
  await last(cp);
  const rss = new Map(cp.processes().map((p) => [p.name, peakRssKiB(p.pid)]));
  const stopping = performance.now();
  await cp.stop();
  return { startMs, stopMs: performance.now() - stopping, rss } satisfies Sample;
}

const coldStarted = performance.now();
const binDir = await ensureBinaries();
const ensureMs = performance.now() - coldStarted;
const record = await readBuildRecord();

const rows: string[][] = [['what', 'value']];
if (process.env.CONVOY_TESTENV_BIN) {
  rows.push(['cold build', `n/a (binaries from CONVOY_TESTENV_BIN=${process.env.CONVOY_TESTENV_BIN})`]);
} else if (record) {
  const total = Object.values(record.seconds).reduce((a, b) => a + b, 0);
  const parts = Object.entries(record.seconds)
    .map(([k, v]) => `${k.includes('kube-apiserver') ? 'kubernetes' : k.split(' ')[0]} ${v}s`)
    .join(', ');
  rows.push(['cold build (recorded)', `${total} s (${parts}; ${record.goVersion}, ${record.finishedAt})`]);
} else {
  rows.push(['cold build', 'cached (no build record)']);
}
rows.push(['ensureBinaries() now', ms(ensureMs)]);

const noop = async () => {};
const plain: Sample[] = [];
for (let i = 0; i < RUNS; i++) plain.push(await sample(binDir, {}, noop));
const restarts: number[] = [];
const withSecond: Sample[] = [];
for (let i = 0; i < RUNS; i++) {
  withSecond.push(
    await sample(binDir, { secondCluster: true }, async (cp) => {
      const t = performance.now();
      await cp.restartApiServer();
      restarts.push(performance.now() - t);
    }),
  );
}
const workloads: Sample[] = [];
for (let i = 0; i < RUNS; i++) workloads.push(await sample(binDir, { workloads: true, nodes: 2 }, noop));

const runs = (xs: readonly Sample[], f: (s: Sample) => number) =>
  `${ms(median(xs.map(f)))} (runs: ${xs.map((s) => Math.round(f(s))).join(', ')})`;
rows.push(['start: etcd + apiserver (median of 3)', runs(plain, (s) => s.startMs)]);
rows.push(['start: + second apiserver (median of 3)', runs(withSecond, (s) => s.startMs)]);
rows.push(['start: with workloads, 2 nodes (median of 3)', runs(workloads, (s) => s.startMs)]);
rows.push([
  'restartApiServer() (median of 3)',
  `${ms(median(restarts))} (runs: ${restarts.map(Math.round).join(', ')})`,
]);
rows.push(['stop(): with workloads (median of 3)', runs(workloads, (s) => s.stopMs)]);

const rssRows: string[][] = [['process', 'peak RSS (VmHWM), workloads run']];
const lastWorkloads = workloads.at(-1);
const lastSecond = withSecond.at(-1);
for (const [name, kib] of [
  ...(lastWorkloads?.rss ?? []),
  ['kube-apiserver-second', lastSecond?.rss.get('kube-apiserver-second')] as const,
]) {
  if (name === 'watchdog') continue;
  rssRows.push([name, kib === undefined ? '?' : `${(kib / 1024).toFixed(0)} MiB`]);
}

process.stdout.write(`\n${table(rows)}\n\n${table(rssRows)}\n`);
