// npm run bench:render -- --large: one large Helm render through the controller's path (helm, parse,
// assembly twice with its renderRef, the render store's serialisation and gzip), with the longest
// event-loop stall meanwhile, the wall time, peak RSS, and RSS and heap once the render is dropped and
// a GC ran. The chart is 100 ConfigMaps of 1,000 keys of 500 bytes (~51 MB of helm output, under
// the 64 MiB cap) unless BENCH_LARGE_OBJECTS / _KEYS / _BYTES say otherwise (docs/design.md#large-renders).
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { RenderCache } from '../src/render/cache.ts';
import * as canonical from '../src/render/canonical.ts';
import { HelmRenderer } from '../src/render/helm/renderer.ts';
import * as release from '../src/render/release.ts';
import type { Render, SourceFile } from '../src/render/types.ts';
import { encodeRender } from '../src/store/layout.ts';
import { ensureTools } from '../src/testenv/tools.ts';
import { largeChartFiles } from '../test/support/large-chart.ts';

const OBJECTS = Number(process.env.BENCH_LARGE_OBJECTS ?? 100);
const KEYS = Number(process.env.BENCH_LARGE_KEYS ?? 1000);
const BYTES = Number(process.env.BENCH_LARGE_BYTES ?? 500);

/** Renders one after another (BENCH_LARGE_RUNS, default 2). */
const RUNS = Number(process.env.BENCH_LARGE_RUNS ?? 2);

const enc = (s: string) => new TextEncoder().encode(s);
const chartFiles = (): SourceFile[] =>
  Object.entries(largeChartFiles(OBJECTS, KEYS, BYTES)).map(([path, text]) => ({ path, data: enc(text) }));

const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
const gc = async () => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with --expose-gc (npm run bench:render does)');
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setImmediate(r));
  }
};
const memory = () => {
  const m = process.memoryUsage();
  const committed = getHeapStatistics().total_physical_size;
  return `RSS ${mib(m.rss)}, heap used ${mib(m.heapUsed)} of ${mib(committed)} committed, external ${mib(m.external)}`;
};

// The step the controller takes now, or the one it took before it had one (to measure both).
type Assemble = (...a: Parameters<typeof release.assembleOutcome>) => Promise<release.RenderOutcome>;
const named = release as unknown as Record<string, unknown>;
const assemble: Assemble =
  typeof named.assembleOutcomeYielding === 'function'
    ? (named.assembleOutcomeYielding as Assemble)
    : async (...a) => release.assembleOutcome(...a);
const refOf = async (r: Render): Promise<string> => {
  const f = (canonical as unknown as Record<string, unknown>).renderRefYielding;
  return typeof f === 'function' ? (f as (r: Render) => Promise<string>)(r) : canonical.renderRef(r);
};

type Figures = { readonly text: string; readonly cache: RenderCache };

/** The render and its figures; everything it made is unreachable once the caller drops `cache`. */
async function renderOnce(helm: string): Promise<Figures> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 25);
  delay.enable();
  const start = performance.now();
  const cache = new RenderCache();
  const spec = { render: { type: 'Helm' as const } };
  const manifests = await release.renderManifests(
    spec,
    { revision: 'bench', files: chartFiles() },
    { renderers: { Helm: new HelmRenderer({ binary: helm, cache }) }, namespace: 'bench', name: 'bench' },
  );
  const parsed = performance.now();
  // As stage-render does: assembled before and after discovery, then stored.
  await assemble(spec, 'bench', manifests, { releaseNamespace: 'bench' });
  const out = await assemble(spec, 'bench', manifests, {
    releaseNamespace: 'bench',
    isNamespaced: () => true,
  });
  if (!out.ok) throw new Error(out.error.message);
  if ((await refOf(out.render)) !== out.renderRef)
    throw new Error('the store check hashed another renderRef');
  const blob = await encodeRender(out.render);
  const end = performance.now();
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const bytes = blob.chunks.reduce((n, c) => n + c.length, 0);
  const text =
    `  render ${((end - start) / 1000).toFixed(1)} s (helm and parse ${((parsed - start) / 1000).toFixed(1)} s), ` +
    `${out.render.objects.length} objects, stored gzip ${(bytes / 1024).toFixed(0)} KiB\n` +
    `  longest event-loop stall ${(delay.max / 1e6).toFixed(0)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms)\n` +
    `  peak RSS ${mib(peak)}\n`;
  return { text, cache };
}

export async function measureLarge(): Promise<void> {
  const helm = join(await ensureTools(), 'helm');
  await gc();
  process.stdout.write(`large helm render, ${OBJECTS} ConfigMaps x ${KEYS} keys x ${BYTES} B\n`);
  process.stdout.write(`  before: ${memory()}\n`);
  let figures: Figures | undefined;
  for (let run = 1; run <= RUNS; run++) {
    // A run's render is dropped before the next: RSS after several tells a leak from memory kept for reuse.
    figures = undefined;
    figures = await renderOnce(helm);
    process.stdout.write(`  run ${run} of ${RUNS}:\n${figures.text}`);
  }
  if (figures === undefined) return;
  await gc();
  process.stdout.write(
    `  render kept by the render cache (${mib(figures.cache.bytes)}), after GC: ${memory()}\n`,
  );
  figures = undefined;
  await gc();
  process.stdout.write(`  render dropped, after GC: ${memory()}\n`);
}
