// Table tests for lease liveness and the candidate's decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decideLease,
  EXPIRY_MARGIN_MS,
  foreignExpiry,
  isLeaseLive,
  type Lease,
  leaseRevived,
  microTime,
  nextRoundDelay,
  releasedSpec,
} from './lease.ts';

const T = Date.parse('2026-01-01T00:00:10Z');
const lease = (holder: string | null, renewedSecondsAgo: number, duration = 15, transitions = 2): Lease => ({
  metadata: { name: 'l', namespace: 'ns', resourceVersion: '5' },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: duration,
    renewTime: microTime(T - renewedSecondsAgo * 1000),
    leaseTransitions: transitions,
  },
});

test('microTime has six fractional digits', () => {
  assert.equal(microTime(Date.parse('2026-01-01T00:00:00.123Z')), '2026-01-01T00:00:00.123000Z');
});

test('isLeaseLive', () => {
  const cases: Array<[string, Lease | undefined, boolean]> = [
    ['missing', undefined, false],
    ['fresh', lease('a', 1), true],
    ['just before expiry', lease('a', 14.999), true],
    ['at expiry', lease('a', 15), false],
    ['expired', lease('a', 60), false],
    ['no holder', lease(null, 1), false],
    ['empty holder', lease('', 1), false],
    ['no spec', { metadata: { name: 'l' } }, false],
    [
      'bad time',
      { metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 5, renewTime: 'x' } },
      false,
    ],
  ];
  for (const [name, l, want] of cases) assert.equal(isLeaseLive(l, T), want, name);
});

test('leaseRevived: a lapsed lease renewed counts, a renewal within the hold does not', () => {
  const cases: Array<[string, Lease | undefined, Lease | undefined, boolean]> = [
    ['renewed in time', lease('a', 3), lease('a', 0), false],
    ['renewed after it lapsed', lease('a', 20), lease('a', 0), true],
    ['first seen live', undefined, lease('a', 0), true],
    ['lapsed and still lapsed', lease('a', 40), lease('a', 20), false],
    ['released, then taken', lease(null, 1), lease('b', 0), true],
    ['live, then released', lease('a', 1), lease(null, 0), false],
  ];
  for (const [name, o, n, want] of cases) assert.equal(leaseRevived(o, n, T), want, name);
});

test('decideLease', () => {
  const cases: Array<[string, Lease | undefined, string, number | undefined]> = [
    // name, lease, decision, leaseTransitions written
    ['none', undefined, 'create', 0],
    ['mine, live', lease('me', 3), 'renew', 2],
    ['other, live', lease('other', 3), 'wait', undefined],
    ['other, expired', lease('other', 16), 'acquire', 3],
    ['released', lease(null, 0, 1), 'acquire', 2],
    ['mine, expired', lease('me', 30), 'acquire', 3],
  ];
  for (const [name, l, kind, transitions] of cases) {
    const d = decideLease(l, 'me', T, 15);
    assert.equal(d.kind, kind, name);
    if (d.kind !== 'wait') {
      assert.equal(d.spec.holderIdentity, 'me', name);
      assert.equal(d.spec.renewTime, microTime(T), name);
      assert.equal(d.spec.leaseTransitions, transitions, name);
    } else {
      assert.equal(d.holder, 'other');
    }
  }
});

test('a released lease is not live', () => {
  const r = releasedSpec(lease('me', 0).spec ?? {}, T);
  assert.equal(isLeaseLive({ metadata: { name: 'l' }, spec: r }, T), false);
});

test('foreignExpiry: only a Lease another replica holds live', () => {
  const cases: Array<[string, Lease | undefined, number | undefined]> = [
    ['held by another, renewed 10 s ago', lease('b', 10), T + 5_000],
    ['held by us', lease('a', 10), undefined],
    ['expired', lease('b', 15), undefined],
    ['free', lease(null, 1), undefined],
    ['missing', undefined, undefined],
  ];
  for (const [name, l, want] of cases) assert.equal(foreignExpiry(l, 'a', T), want, name);
});

test('nextRoundDelay: the cadence, or just after the soonest expiry when that comes first', () => {
  const cases: Array<[string, (number | undefined)[], number]> = [
    ['nothing held by others', [undefined, undefined], 5_000],
    ['every other Lease renewed lately', [T + 12_000, T + 14_000], 5_000],
    ['one runs out in 2 s', [T + 12_000, T + 2_000, undefined], 2_000 + EXPIRY_MARGIN_MS],
    ['one runs out right now', [T], EXPIRY_MARGIN_MS],
    ['no Leases read', [], 5_000],
  ];
  for (const [name, expiries, want] of cases) assert.equal(nextRoundDelay(expiries, T, 5_000), want, name);
});
