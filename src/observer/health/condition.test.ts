import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptySummary, type HealthSummary, healthSummary } from '../../api/health-summary.ts';
import type { InventoryEntry } from '../../api/types.ts';
import { type ConditionInput, healthyCondition } from './condition.ts';
import { deploymentEntry } from './fixtures.ts';
import type { HealthState } from './types.ts';

const R = 'sha256:new';
const e = (
  name: string,
  state: HealthState | undefined,
  renderRef: string | null = R,
  message?: string,
): InventoryEntry =>
  deploymentEntry(name, {
    ...(renderRef !== null ? { renderRef } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(message !== undefined ? { message } : {}),
  });

test('healthSummary counts states; entries without one are unknown', () => {
  assert.deepEqual(healthSummary([]), emptySummary);
  assert.deepEqual(
    healthSummary([
      e('a', 'Healthy'),
      e('b', 'Healthy'),
      e('c', 'Progressing'),
      e('d', 'Degraded'),
      e('f', 'Unknown'),
      e('g', undefined),
    ]),
    { healthy: 2, progressing: 1, degraded: 1, unknown: 2, total: 6 },
  );
});

test('healthyCondition follows docs/design.md#healthy-condition, first row wins', () => {
  const prev = { healthy: 1, progressing: 0, degraded: 0, unknown: 0, total: 1 };
  const assessed = (entries: InventoryEntry[], last: string | null = R): ConditionInput => ({
    outcome: { kind: 'assessed', entries },
    lastAttemptedRenderRef: last ?? undefined,
    previousSummary: prev,
  });
  type Want = [status: string, reason: string, message: RegExp];
  const cases: [string, ConditionInput, Want][] = [
    [
      'no healthAssessment',
      { outcome: { kind: 'notConfigured' }, lastAttemptedRenderRef: R, previousSummary: prev },
      ['True', 'NotConfigured', /no healthAssessment/],
    ],
    [
      'assess failed',
      {
        outcome: { kind: 'failed', message: 'cluster unreachable' },
        lastAttemptedRenderRef: R,
        previousSummary: prev,
      },
      ['Unknown', 'Unknown', /cluster unreachable/],
    ],
    ['empty inventory after an attempt', assessed([]), ['Unknown', 'Pending', /no object/]],
    [
      'empty inventory, nothing attempted yet',
      assessed([], null),
      ['Unknown', 'Pending', /no render applied yet/],
    ],
    [
      'leftover entries, nothing attempted yet',
      assessed([e('a', 'Healthy', null)], null),
      ['Unknown', 'Pending', /no render applied yet/],
    ],
    [
      'an entry of an older render, even Degraded',
      assessed([e('a', 'Degraded', 'sha256:old'), e('b', 'Healthy')]),
      ['Unknown', 'Pending', /1 of 2 objects not yet applied for render sha256:new/],
    ],
    ['an entry without renderRef', assessed([e('a', 'Healthy', null)]), ['Unknown', 'Pending', /1 of 1/]],
    [
      'degraded beats progressing and unknown',
      assessed([e('a', 'Progressing'), e('b', 'Degraded', R, '0/3 available'), e('c', 'Unknown')]),
      ['False', 'Degraded', /^1 object degraded: Deployment ns\/b: 0\/3 available$/],
    ],
    [
      'two degraded',
      assessed([e('a', 'Degraded'), e('b', 'Degraded')]),
      ['False', 'Degraded', /2 objects degraded: Deployment ns\/a \(and 1 more\)/],
    ],
    [
      'progressing',
      assessed([e('a', 'Healthy'), e('b', 'Progressing')]),
      ['Unknown', 'Progressing', /1 object not healthy yet: Deployment ns\/b/],
    ],
    ['unknown', assessed([e('a', 'Unknown')]), ['Unknown', 'Progressing', /not healthy yet/]],
    ['not yet assessed', assessed([e('a', undefined)]), ['Unknown', 'Progressing', /not healthy yet/]],
    [
      'all healthy',
      assessed([e('a', 'Healthy'), e('b', 'Healthy')]),
      ['True', 'Healthy', /2 objects healthy/],
    ],
  ];
  for (const [what, input, [status, reason, message]] of cases) {
    const c = healthyCondition(input);
    assert.equal(c.status, status, what);
    assert.equal(c.reason, reason, what);
    assert.match(c.message, message, what);
  }
});

test('healthyCondition summaries', () => {
  /** A summary with nothing degraded or unknown. */
  const sum = (healthy: number, progressing: number): HealthSummary => ({
    healthy,
    progressing,
    degraded: 0,
    unknown: 0,
    total: healthy + progressing,
  });
  const prev = sum(4, 0);
  const failed = { kind: 'failed', message: 'x' } as const;
  const one = { kind: 'assessed', entries: [e('a', 'Healthy')] } as const;
  const two = {
    kind: 'assessed',
    entries: [e('a', 'Healthy'), e('b', 'Progressing', 'sha256:old')],
  } as const;
  // [what, outcome, lastAttemptedRenderRef, previousSummary, the summary written]
  type Row = [
    string,
    ConditionInput['outcome'],
    string | undefined,
    HealthSummary | undefined,
    HealthSummary,
  ];
  const cases: Row[] = [
    ['not configured', { kind: 'notConfigured' }, R, prev, emptySummary],
    ['kept on failure', failed, R, prev, prev],
    ['a failure with no summary before', failed, R, undefined, emptySummary],
    ['counted from the entries even while Pending', two, R, prev, sum(1, 1)],
    [
      'before the first attempt the summary written with the first Pending is kept',
      one,
      undefined,
      emptySummary,
      emptySummary,
    ],
    ['counted when there is none yet', one, undefined, undefined, sum(1, 0)],
  ];
  for (const [what, outcome, lastAttemptedRenderRef, previousSummary, want] of cases) {
    assert.deepEqual(
      healthyCondition({ outcome, lastAttemptedRenderRef, previousSummary }).summary,
      want,
      what,
    );
  }
});
