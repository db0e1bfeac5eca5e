// viewOf's `blocked` as a table: a Release that observed its spec and is Stalled or Ready=False for a
// failure blocks; a stale status, a rollback's Ready=False or a Ready that resolves by itself does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Condition, Release } from '../../api/types.ts';
import { viewOf } from './observe.ts';

const rel = (observed: number, conditions: Condition[]): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { namespace: 'shop', name: 'web-eu', generation: 2 },
  spec: { source: { inline: { manifests: 'x' } } },
  status: { observedGeneration: observed, conditions },
});
const c = (
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message = `${reason} text`,
) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-12-06T08:00:00Z',
});

test('viewOf: blocked only when the status of the current spec says the Release cannot go on', () => {
  const cases: ReadonlyArray<readonly [string, Release, ReturnType<typeof viewOf>['blocked']]> = [
    [
      'DryRunFailed',
      rel(2, [c('Ready', 'False', 'DryRunFailed')]),
      { reason: 'DryRunFailed', message: 'DryRunFailed text' },
    ],
    [
      'Stalled with Ready Unknown',
      rel(2, [c('Ready', 'Unknown', 'Progressing'), c('Stalled', 'True', 'InvalidSpec')]),
      { reason: 'InvalidSpec', message: 'InvalidSpec text' },
    ],
    ['a stale status (generation 1 of 2)', rel(1, [c('Ready', 'False', 'DryRunFailed')]), undefined],
    ['rolled back: the rollout says it', rel(2, [c('Ready', 'False', 'RolledBack')]), undefined],
    [
      'waiting for a wave: resolves by itself',
      rel(2, [c('Ready', 'Unknown', 'WaitingForClusterWave')]),
      undefined,
    ],
    ['synced', rel(2, [c('Ready', 'True', 'Synced'), c('Stalled', 'False', 'NotStalled')]), undefined],
  ];
  for (const [what, r, want] of cases) assert.deepEqual(viewOf(r).blocked, want, what);
});
