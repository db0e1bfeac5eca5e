// When Rollback is offered and what Unpin warns of, by table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2, testRelease } from '../api/testsupport.ts';
import type { Release, ReleaseStatus } from '../api/types.ts';
import { rollbackOffer, unpinOffer } from './offers.ts';

const T = '2030-01-01T12:04:10.000Z';
const good = { renderRef: R1, revision: 'good', time: T };
const bad = { renderRef: R2, revision: 'bad' };

const release = (status: ReleaseStatus, pinned?: string): Release =>
  testRelease(
    'ns',
    'web',
    { failurePolicy: { deadline: '1m' }, ...(pinned === undefined ? {} : { pin: { renderRef: pinned } }) },
    status,
  );

const rolledBack: ReleaseStatus = {
  currentRender: bad,
  lastHealthy: good,
  lastSuccessful: good,
  rollout: { state: 'RolledBack', renderRef: R2, revision: 'bad', finishedAt: T, reason: 'DeadlineExceeded' },
};

const rollbackRows: readonly (readonly [string, Release, string])[] = [
  ['nothing healthy yet: disabled', release({ currentRender: bad }), 'disabled: no render of this Release'],
  [
    'a new render rolling out over the last healthy one: offered',
    release({
      currentRender: bad,
      lastHealthy: good,
      lastSuccessful: good,
      rollout: { state: 'Progressing', renderRef: R2 },
    }),
    `offered: ${R1}`,
  ],
  [
    'the bad render applied and Failed: offered',
    release({
      currentRender: bad,
      lastHealthy: good,
      lastSuccessful: { ...bad, time: T },
      rollout: { state: 'Failed', renderRef: R2 },
    }),
    `offered: ${R1}`,
  ],
  [
    'already rolled back: it would only pin the running render',
    release(rolledBack),
    'disabled: the running render 111111111111 (revision good) is the last healthy one (convoy already rolled back to it): a rollback would only pin it',
  ],
  [
    'healthy and running: it would only pin it',
    release({ currentRender: bad, lastHealthy: good, lastSuccessful: good }),
    'disabled: the running render 111111111111 (revision good) is the last healthy one: a rollback would only pin it',
  ],
  ['pinned to it already', release(rolledBack, R1), 'disabled: already pinned to the last healthy render'],
];

for (const [name, r, want] of rollbackRows) {
  test(`rollbackOffer: ${name}`, () => {
    const o = rollbackOffer(r);
    const text = o.kind === 'offered' ? `offered: ${o.renderRef}` : `disabled: ${o.reason}`;
    assert.ok(text.startsWith(want), text);
  });
}

test('unpinOffer: hidden without a pin; right after a rollback it warns of the revision that rolled back', () => {
  assert.deepEqual(unpinOffer(release(rolledBack)), { kind: 'hidden' });
  // Pinned to the last healthy render: status.currentRender is the pinned one, the rollout the source's.
  assert.deepEqual(unpinOffer(release({ ...rolledBack, currentRender: { ...good } }, R1)), {
    kind: 'offered',
    warning: { renderRef: R2, revision: 'bad', at: T, reason: 'DeadlineExceeded' },
  });
  // Pinned while things were fine: nothing to warn of.
  assert.deepEqual(unpinOffer(release({ currentRender: bad, lastHealthy: good, lastSuccessful: good }, R1)), {
    kind: 'offered',
  });
});
