// Tests of the controller wiring that need no API server: the shard gate is checked when a key
// is worked, errors are logged with the key and counted, gaining a shard enqueues its keys.
// (The informer is constructed but never started: no request is made.)

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { unreachableKubeConfig } from '../kube/testsupport.ts';
import { Controller, type ControllerSpec } from './controller.ts';
import { deletionStarted, type KubeObject } from './filters.ts';
import { type EventHandlers, Informer } from './informer.ts';
import { newLogger } from './log.ts';
import { newMetrics } from './metrics.ts';
import { Transport } from './transport.ts';

function setup(owned: Set<number>) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const log = newLogger('t', sink, 'debug');
  const metrics = newMetrics();
  const kc = unreachableKubeConfig();
  const primary = new Informer(new Transport(kc), { path: '/api/v1/configmaps' });
  const worked: string[] = [];
  const c = new Controller(
    {
      name: 'demo',
      primary,
      workers: 1,
      shardOfKey: (key) => (key.startsWith('s0/') ? 0 : 1),
      queue: { baseDelayMs: 1, maxDelayMs: 2 },
      reconcile: async (key, { log }) => {
        worked.push(key);
        log.info('working');
        return key.endsWith('bad') ? { kind: 'error', error: new Error('nope') } : { kind: 'done' };
      },
    },
    log,
    metrics,
    { owns: (s) => owned.has(s) },
  );
  return { c, lines, worked, metrics };
}

async function until(what: string, f: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

test('keys of shards this replica does not own are not reconciled', async () => {
  const { c, worked } = setup(new Set([0]));
  c.start();
  c.queue.add('s1/a');
  c.queue.add('s0/a');
  await until('s0/a worked', () => worked.includes('s0/a'));
  await until('queue idle', () => c.queue.len() === 0 && c.queue.processingCount() === 0);
  assert.deepEqual(worked, ['s0/a']);
  await c.drain();
});

test('errors are retried, logged with the key and counted', async () => {
  const { c, lines, worked, metrics } = setup(new Set([0, 1]));
  c.start();
  c.queue.add('s0/bad');
  await until('three attempts', () => worked.filter((k) => k === 's0/bad').length >= 3);
  await c.drain();
  const failed = lines.filter((l) => l.msg === 'reconcile failed');
  assert.ok(failed.length >= 2);
  for (const l of lines.filter((l) => l.msg === 'working' || l.msg === 'reconcile failed')) {
    assert.equal(l.key, 's0/bad');
    assert.equal(l.controller, 'demo');
  }
  const text = await metrics.registry.metrics();
  assert.match(text, /convoy_reconcile_errors_total\{controller="demo"\} [2-9]/);
  assert.match(text, /convoy_workqueue_retries_total\{controller="demo"\} [2-9]/);
  assert.match(text, /convoy_reconcile_duration_seconds_count\{controller="demo",result="error"\} [2-9]/);
});

/** A controller over a primary whose events the test fires itself (only addHandlers is used). */
function withHandlers(
  reconcile: ControllerSpec<KubeObject>['reconcile'],
  extra: Partial<ControllerSpec<KubeObject>>,
) {
  const handlers: EventHandlers<KubeObject>[] = [];
  const primary = {
    addHandlers: (h: EventHandlers<KubeObject>) => handlers.push(h),
  } as unknown as Informer<KubeObject>;
  const metrics = newMetrics();
  const c = new Controller<KubeObject>(
    { name: 'demo', primary, workers: 1, queue: { baseDelayMs: 1, maxDelayMs: 2 }, reconcile, ...extra },
    newLogger('t', new Writable({ write: (_c, _e, cb) => cb() }), 'error'),
    metrics,
    undefined,
  );
  return { c, metrics, handlers };
}

/** Resolves when the signal aborts, with its reason. */
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );

test('a reconcile past its deadline is aborted through its signal, counted, and retried with backoff', async () => {
  const reasons: unknown[] = [];
  const { c, metrics } = withHandlers(
    async (_key, { signal }) => {
      reasons.push(await aborted(signal));
      return { kind: 'done' };
    },
    { reconcileTimeoutMs: 30 },
  );
  c.start();
  c.queue.add('ns/stuck');
  await until('two aborted attempts', () => reasons.length >= 2);
  await c.drain();
  assert.match(String(reasons[0]), /passed its deadline of 0.03s/);
  const text = await metrics.registry.metrics();
  assert.match(text, /convoy_reconcile_timeouts_total\{controller="demo"\} [2-9]/);
  assert.match(text, /convoy_workqueue_retries_total\{controller="demo"\} [2-9]/);
});

test('an update the spec names supersedes the reconcile in flight; the key runs again at once', async () => {
  const obj = (deleting: boolean): KubeObject => ({
    metadata: { namespace: 'ns', name: 'a', ...(deleting ? { deletionTimestamp: 'now' } : {}) },
  });
  const runs: string[] = [];
  const { c, metrics, handlers } = withHandlers(
    async (_key, { signal }) => {
      if (runs.length === 0) {
        runs.push('first');
        runs.push(String(await aborted(signal)));
      } else runs.push('second');
      return { kind: 'done' };
    },
    { supersedes: deletionStarted, reconcileTimeoutMs: 60_000 },
  );
  c.start();
  for (const h of handlers) h.add?.(obj(false), false);
  await until('first run in flight', () => c.inFlight === 1);
  // An update the filter does not name leaves the reconcile alone.
  for (const h of handlers) h.update?.(obj(false), { ...obj(false), spec: 1 });
  assert.equal(runs.length, 1);
  for (const h of handlers) h.update?.(obj(false), obj(true));
  await until('the second run', () => runs.includes('second'));
  await c.drain();
  assert.deepEqual(runs, ['first', 'ReconcileAbortedError: superseded: the object changed', 'second']);
  assert.match(await metrics.registry.metrics(), /convoy_reconcile_superseded_total\{controller="demo"\} 1/);
  assert.equal(c.queue.numRequeues('ns/a'), 0);
});

test('the first list and resyncs are routine: a Release created since is worked before them', async () => {
  const worked: string[] = [];
  const { c, handlers } = withHandlers(async (key) => {
    worked.push(key);
    return { kind: 'done' };
  }, {});
  const obj = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name } });
  const resynced = obj('resynced');
  for (const h of handlers) {
    h.add?.(obj('listed-1'), true);
    h.add?.(obj('listed-2'), true);
    h.update?.(resynced, resynced);
    h.add?.(obj('created'), false);
    h.update?.(obj('edited'), { ...obj('edited'), spec: 1 });
  }
  c.start();
  await until('all five worked', () => worked.length === 5);
  await c.drain();
  assert.deepEqual(worked, ['ns/created', 'ns/edited', 'ns/listed-1', 'ns/listed-2', 'ns/resynced']);
});
