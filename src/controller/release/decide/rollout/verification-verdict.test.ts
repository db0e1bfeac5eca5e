// Table tests of the verification rows of verdict(R) and planRollout's verificationFailed reading
// (docs/design.md#verification): Pending while R verifies, final at once when a check failed, held for a
// person when inconclusive, and never an older render's or an older attempt's measurements.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { VerificationStatus } from '../../../../api/index.ts';
import { entry, MIN, obj, R1, R2, T0 } from './fixtures.ts';
import { planRollout } from './plan-rollout.ts';
import { plan, rollout } from './plan-rollout-fixtures.ts';
import { formatTime } from './time.ts';
import { type VerdictInput, type VerificationOfR, verdict } from './verdict.ts';

const a = obj('a');
const b = obj('b');

function status(
  phase: VerificationStatus['phase'],
  over: Partial<VerificationStatus> = {},
): VerificationStatus {
  return {
    renderRef: R2,
    startedAt: formatTime(T0 + MIN),
    phase,
    message: `error-rate: ${phase}`,
    ...over,
  };
}

function input(verification: VerificationOfR | undefined, healthy = true): VerdictInput {
  const state = healthy ? 'Healthy' : 'Progressing';
  return {
    render: { renderRef: R2, objects: [a, b], hooks: [] },
    entries: [entry(a, R2, state), entry(b, R2, 'Healthy')],
    hooks: [],
    observerLive: true,
    ...(verification === undefined ? {} : { verification }),
  };
}

const since = formatTime(T0);
const of = (st: VerificationStatus | undefined, accepted = false): VerificationOfR => ({
  status: st,
  since,
  accepted,
});

describe('verdict(R) with spec.verification', () => {
  const rows: readonly {
    readonly name: string;
    readonly in: VerdictInput;
    readonly kind: string;
    readonly reason: string;
  }[] = [
    {
      name: 'no verification configured: Healthy as before',
      in: input(undefined),
      kind: 'Healthy',
      reason: 'Healthy',
    },
    {
      name: 'every object Healthy, no measurement yet: Verifying',
      in: input(of(undefined)),
      kind: 'Pending',
      reason: 'Verifying',
    },
    {
      name: 'soak running: Verifying',
      in: input(of(status('Running'))),
      kind: 'Pending',
      reason: 'Verifying',
    },
    { name: 'passed: Healthy', in: input(of(status('Passed'))), kind: 'Healthy', reason: 'Healthy' },
    {
      name: 'failed: Unhealthy VerificationFailed, even while an object is Progressing',
      in: input(of(status('Failed')), false),
      kind: 'Unhealthy',
      reason: 'VerificationFailed',
    },
    {
      name: 'inconclusive: held for a person (Pending, never a rollback)',
      in: input(of(status('Inconclusive'))),
      kind: 'Pending',
      reason: 'VerificationInconclusive',
    },
    {
      name: 'inconclusive and accepted: Healthy',
      in: input(of(status('Inconclusive'), true)),
      kind: 'Healthy',
      reason: 'Healthy',
    },
    {
      name: "another render's measurements say nothing of R",
      in: input(of(status('Passed', { renderRef: R1 }))),
      kind: 'Pending',
      reason: 'Verifying',
    },
    {
      name: "another render's failure does not fail R",
      in: input(of(status('Failed', { renderRef: R1 }))),
      kind: 'Pending',
      reason: 'Verifying',
    },
    {
      name: 'measurements begun before R’s rollout clock are an earlier attempt’s',
      in: input(of(status('Failed', { startedAt: formatTime(T0 - MIN) }))),
      kind: 'Pending',
      reason: 'Verifying',
    },
    {
      name: 'objects still Progressing: the object rows decide (deadline applies)',
      in: input(of(status('Running')), false),
      kind: 'Unhealthy',
      reason: 'ObjectsUnhealthy',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      const v = verdict(row.in);
      assert.deepEqual([v.kind, v.reason], [row.kind, row.reason]);
    });
  }

  test('the failed message carries the check’s sentence', () => {
    const v = verdict(input(of(status('Failed', { message: 'error-rate: 0.072 > 0.01 at 12:03:10' }))));
    assert.match(
      v.message,
      /verification of sha256:222222222222… failed: error-rate: 0\.072 > 0\.01 at 12:03:10/,
    );
  });
});

describe('planRollout reads a failed verification as final', () => {
  const failed = {
    kind: 'Unhealthy',
    reason: 'VerificationFailed',
    message: 'verification of R failed: error-rate 0.07 > 0.01',
  } as const;
  test('before the deadline: rolled back at once, reason VerificationFailed', () => {
    const p = planRollout(plan({ verdict: failed, now: T0 + MIN }));
    assert.equal(p.rule, 'rollBack');
    assert.equal(p.next?.state, 'RolledBack');
    assert.equal(p.next?.reason, 'VerificationFailed');
    assert.deepEqual(p.action, { kind: 'applyLastHealthy' });
    assert.match(
      p.next?.message ?? '',
      /failed its verification: .*error-rate 0\.07 > 0\.01; rolled back to/,
    );
  });
  test('not eligible (rollback Never): Failed at once', () => {
    const p = planRollout(
      plan({ verdict: failed, failurePolicy: { deadline: '10m', rollback: 'Never' }, now: T0 + MIN }),
    );
    assert.deepEqual([p.rule, p.next?.state, p.next?.reason], ['fail', 'Failed', 'VerificationFailed']);
  });
  test('Verifying past the deadline waits: the deadline never cuts a soak short', () => {
    const verifying = { kind: 'Pending', reason: 'Verifying', message: 'verifying' } as const;
    const p = planRollout(plan({ verdict: verifying, now: T0 + 60 * MIN }));
    assert.equal(p.rule, 'wait');
    assert.equal(p.next?.state, 'Progressing');
  });
  test('a clock not started yet does not keep a failed verification from being final', () => {
    const p = planRollout(
      plan({ verdict: failed, prior: rollout('Progressing', R2, null), renderApplied: false }),
    );
    assert.equal(p.next?.state, 'RolledBack');
  });
});
