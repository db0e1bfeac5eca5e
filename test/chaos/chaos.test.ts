// The short chaos run of npm test: 12 Releases through healthy → healthy → unhealthy renders while the
// controller-manager and the observer are killed -9 (3 times) and kube-apiserver restarted once, on a
// seeded schedule (seed 2 unless CHAOS_SEED says otherwise; the seed is printed). Every invariant must hold: see
// test/chaos/invariants.ts and docs/development.md. `npm run chaos` is the long run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chaosOptions } from './options.ts';
import { runChaos } from './run.ts';

test('chaos: kills and an apiserver restart during 12 rollouts break no invariant', async (t) => {
  const report = await runChaos(chaosOptions('short', process.env, (line) => t.diagnostic(line)));
  t.diagnostic(
    `seed ${report.seed}: ${report.kills} kills, ${report.apiServerRestarts} apiserver restarts, ` +
      `convergence ${report.convergenceSeconds} s after the last fault, ${report.durationSeconds} s in all, ` +
      `step seconds ${JSON.stringify(report.stepSeconds)}`,
  );
  assert.ok(report.kills > 0, `no kill happened during the drive (seed ${report.seed})`);
  // The schedule puts the restart among the first two faults: a run without it did not test it.
  assert.equal(report.apiServerRestarts, 1, `the apiserver restart never came (seed ${report.seed})`);
  assert.deepEqual(
    report.violations.map((v) => `${v.invariant}: ${v.subject}: ${v.detail}`),
    [],
    `seed ${report.seed} (CHAOS_SEED=${report.seed} replays it)`,
  );
});
