// npm run bench:runtime — figures for the controller harness:
//  1. work-queue throughput (keys/s) with 4 workers and a no-op reconcile, for distinct keys
//     and for a few hot keys added over and over (dedup);
//  2. informer memory for 10,000 ConfigMaps on the real local control plane: heap bytes per
//     cached object, with and without stripping metadata.managedFields.
// Run with --expose-gc (the npm script does) so heap figures are measured after a full GC.
import { pino } from 'pino';
import { Informer } from '../src/runtime/informer.ts';
import { WorkQueue } from '../src/runtime/queue.ts';
import { Transport } from '../src/runtime/transport.ts';
import { WorkerPool } from '../src/runtime/workers.ts';
import { startControlPlane } from '../src/testenv/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:runtime)');

/** Reconciles per second, and adds per second (the same when every key is distinct). */
async function queueThroughput(
  keys: number,
  distinct: number,
  workers: number,
): Promise<{ reconciles: number; adds: number }> {
  const q = new WorkQueue();
  let done = 0;
  let finish: () => void = () => {};
  const allDone = new Promise<void>((r) => {
    finish = r;
  });
  let target = Number.POSITIVE_INFINITY;
  const pool = new WorkerPool(
    q,
    async () => {
      done++;
      if (done >= target) finish();
      return { kind: 'done' };
    },
    workers,
  );
  pool.start();
  const start = performance.now();
  for (let i = 0; i < keys; i++) {
    q.add(`ns-${i % 50}/key-${i % distinct}`);
    // Yield now and then, as informer events do, so workers run while keys arrive.
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  // Everything added is handed out once the queue is idle; wait for that.
  target = done + q.len() + q.processingCount();
  if (done >= target) finish();
  await allDone;
  const seconds = (performance.now() - start) / 1000;
  await q.shutDownWithDrain();
  await pool.stopped();
  return { reconciles: done / seconds, adds: keys / seconds };
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap growth of one more synced informer, per cached object. Earlier informers stay alive
 * (stopping one leaves garbage whose collection would blur the next figure), so each delta is
 * just this informer's cache.
 */
async function informerBytesPerObject(
  t: Transport,
  path: string,
  strip: boolean,
  count: number,
  keep: Informer[],
): Promise<number> {
  const before = heapUsed();
  const inf = new Informer(t, {
    path,
    labelSelector: 'app=bench',
    stripManagedFields: strip,
    log: pino({ level: 'silent' }),
  });
  inf.start();
  await inf.waitForSync();
  if (inf.cache.size() !== count) throw new Error(`cached ${inf.cache.size()}, want ${count}`);
  const after = heapUsed();
  keep.push(inf);
  return (after - before) / count;
}

async function createConfigMaps(t: Transport, ns: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: ns, labels: { app: 'bench', shard: String(i % 8) } },
        data: { 'config.yaml': `replicas: ${i % 5}\nimage: example/app:${i}\n`, owner: 'team-bench' },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const out: string[] = [];
const say = (s: string) => {
  out.push(s);
  process.stdout.write(`${s}\n`);
};

say('## queue throughput (4 workers, no-op reconcile)');
for (const [keys, distinct] of [
  [200_000, 200_000],
  [200_000, 100],
] as const) {
  const r = await queueThroughput(keys, distinct, 4);
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  say(`${keys} adds over ${distinct} distinct keys: ${f(r.adds)} adds/s, ${f(r.reconciles)} reconciles/s`);
}

say('## informer memory, 10,000 ConfigMaps (real apiserver)');
const COUNT = 10_000;
const cp = await startControlPlane();
try {
  const t = new Transport(cp.kubeConfig);
  const ns = 'bench';
  await t.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  const started = performance.now();
  await createConfigMaps(t, ns, COUNT);
  say(`created ${COUNT} ConfigMaps in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const alive: Informer[] = [];
  // The first informer also pays one-time costs (code, TLS, JIT): a warm-up round, then the figures.
  for (const [round, strip] of [
    ['warm-up', false],
    ['', false],
    ['', true],
    ['', false],
    ['', true],
  ] as const) {
    const bytes = await informerBytesPerObject(t, path, strip, COUNT, alive);
    say(
      `${round || 'measured'}: managedFields ${strip ? 'stripped' : 'kept'}: ${Math.round(bytes)} bytes per cached object`,
    );
  }
  const sample = alive[0]?.cache.list()[0];
  say(`one object as JSON: ${JSON.stringify(sample).length} bytes (managedFields kept)`);
  await Promise.all(alive.map((i) => i.stop()));
} finally {
  await cp.stop();
}
