// Table test of the Verified condition (docs/design.md#verification).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2 } from './rollout/fixtures.ts';
import type { Verdict } from './rollout/index.ts';
import { verifiedCondition } from './verified-condition.ts';

const of = (verdict: Verdict, renderRef = R2) => ({ renderRef, verdict });

test('Verified follows verdict(R) of the rollout’s render', () => {
  const rows: readonly [string, Verdict, string | undefined, string | undefined][] = [
    ['passed', { kind: 'Healthy', reason: 'Healthy', message: 'ok' }, 'True', 'Passed'],
    ['measuring', { kind: 'Pending', reason: 'Verifying', message: 'v' }, 'Unknown', 'Verifying'],
    [
      'a person must act',
      { kind: 'Pending', reason: 'VerificationInconclusive', message: 'v' },
      'False',
      'VerificationInconclusive',
    ],
    [
      'failed',
      { kind: 'Unhealthy', reason: 'VerificationFailed', message: 'v' },
      'False',
      'VerificationFailed',
    ],
    [
      'objects not yet Healthy',
      { kind: 'Unhealthy', reason: 'ObjectsUnhealthy', message: 'v' },
      'Unknown',
      'WaitingForHealth',
    ],
  ];
  for (const [name, verdict, status, reason] of rows) {
    const c = verifiedCondition(of(verdict), R2, 3);
    assert.deepEqual([c?.status, c?.reason, c?.observedGeneration], [status, reason, 3], name);
  }
});

test('another render’s verdict, or none, leaves the condition as it is', () => {
  const healthy: Verdict = { kind: 'Healthy', reason: 'Healthy', message: 'ok' };
  assert.equal(verifiedCondition(of(healthy, R1), R2, 1), undefined);
  assert.equal(verifiedCondition(undefined, R2, 1), undefined);
});
