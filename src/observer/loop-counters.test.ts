// LoopCounters names every loop's counters by one rule; the names and help texts are the ones
// docs/reference/processes.md lists and the e2e tests read, so they are pinned here, loop by loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { LoopCounters } from './loop.ts';

test('LoopCounters: convoy_<loop>_passes, _writes and _sync_requests, with their help texts', async () => {
  const rows: [string, string, [string, string][]][] = [
    [
      'health',
      'Wake-ups (sync requests) sent to the controller',
      [
        ['convoy_health_passes_total', 'Health passes, by result'],
        ['convoy_health_writes_total', 'Writes of the health loop, by object'],
        ['convoy_health_sync_requests_total', 'Wake-ups (sync requests) sent to the controller'],
      ],
    ],
    [
      'drift',
      'selfHeal wake-ups (sync requests) sent to the controller',
      [
        ['convoy_drift_passes_total', 'Drift passes, by result'],
        ['convoy_drift_writes_total', 'Writes of the drift loop, by object'],
        ['convoy_drift_sync_requests_total', 'selfHeal wake-ups (sync requests) sent to the controller'],
      ],
    ],
    [
      'verification',
      'Unused: the inventory write wakes the controller',
      [
        ['convoy_verification_passes_total', 'Verification passes, by result'],
        ['convoy_verification_writes_total', 'Writes of the verification loop, by object'],
        ['convoy_verification_sync_requests_total', 'Unused: the inventory write wakes the controller'],
      ],
    ],
  ];
  for (const [loop, syncsHelp, want] of rows) {
    const registry = new Registry();
    const stats = { passes: 0, writes: 0, syncRequests: 0 };
    const c = new LoopCounters<'done', 'inventory'>(registry, stats, loop, syncsHelp);
    c.pass('done');
    c.wrote('inventory');
    c.synced();
    const metrics = await registry.getMetricsAsJSON();
    assert.deepEqual(
      metrics.map((m) => [m.name, m.help]),
      want,
      loop,
    );
    assert.deepEqual(stats, { passes: 1, writes: 1, syncRequests: 1 }, loop);
  }
});
