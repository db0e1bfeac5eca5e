// Table tests of rolloutTransition: which status.rollout changes are transitions worth an Event.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { R1, R2, R3 } from './fixtures.ts';
import { rolloutTransition } from './transition.ts';
import type { Rollout } from './types.ts';

const ro = (state: Rollout['state'], renderRef: string, extra: Partial<Rollout> = {}): Rollout => ({
  state,
  renderRef,
  revision: `rev-${renderRef.slice(7, 8)}`,
  reason: 'X',
  message: 'why',
  startedAt: '2025-06-01T12:00:00Z',
  ...extra,
});
const healthy1 = { renderRef: R1, revision: 'rev-1', time: '2025-06-01T11:00:00Z' };

describe('rolloutTransition', () => {
  const none: [string, Rollout | undefined, Rollout | undefined][] = [
    ['no next rollout', ro('Succeeded', R1), undefined],
    ['same state and render', ro('Progressing', R2), ro('Progressing', R2, { message: 'other' })],
    [
      'the clock of a held render starts',
      ro('Progressing', R2, { startedAt: undefined }),
      ro('Progressing', R2, { startedAt: '2025-06-01T12:05:00Z' }),
    ],
    ['the hold of a RolledBack rollout', ro('RolledBack', R2), ro('RolledBack', R2)],
  ];
  for (const [name, prior, next] of none) {
    test(`no transition: ${name}`, () => assert.equal(rolloutTransition(prior, next, healthy1), undefined));
  }

  test('a first rollout: from None', () => {
    const t = rolloutTransition(undefined, ro('Progressing', R1, { reason: 'NewRender' }), undefined);
    assert.equal(t?.from, 'None');
    assert.equal(t?.to, 'Progressing');
    assert.equal(t?.eventReason, 'RolloutProgressing');
    assert.equal(t?.eventType, 'Normal');
    assert.match(
      t?.message ?? '',
      /^rollout None → Progressing \(sha256:111111111111… revision rev-1\), reason NewRender: why$/,
    );
  });

  test('Progressing → RolledBack names both renders, the reason and the render applied', () => {
    const t = rolloutTransition(
      ro('Progressing', R2),
      ro('RolledBack', R2, { reason: 'DeadlineExceeded' }),
      healthy1,
    );
    assert.deepEqual(
      { from: t?.from, to: t?.to, fromRef: t?.fromRenderRef, toRef: t?.toRenderRef, type: t?.eventType },
      { from: 'Progressing', to: 'RolledBack', fromRef: R2, toRef: R2, type: 'Warning' },
    );
    assert.match(t?.message ?? '', /Progressing \(sha256:222222222222… revision rev-2\) → RolledBack/);
    assert.match(
      t?.message ?? '',
      /reason DeadlineExceeded; last healthy render sha256:111111111111… revision rev-1 applied/,
    );
  });

  test('a new render replacing a RolledBack one', () => {
    const t = rolloutTransition(
      ro('RolledBack', R2),
      ro('Progressing', R3, { reason: 'NewRender' }),
      healthy1,
    );
    assert.equal(t?.from, 'RolledBack');
    assert.equal(t?.fromRenderRef, R2);
    assert.equal(t?.toRenderRef, R3);
    assert.match(
      t?.message ?? '',
      /RolledBack \(sha256:222222222222… revision rev-2\) → Progressing \(sha256:333333333333…/,
    );
  });

  test('Failed is a Warning, Succeeded Normal', () => {
    assert.equal(rolloutTransition(ro('Progressing', R2), ro('Failed', R2), healthy1)?.eventType, 'Warning');
    assert.equal(
      rolloutTransition(ro('Progressing', R2), ro('Succeeded', R2), healthy1)?.eventType,
      'Normal',
    );
  });

  test('a Progressing rollout whose clock restarts (a re-opened rollout) is a transition', () => {
    const t = rolloutTransition(
      ro('Progressing', R2),
      ro('Progressing', R2, { startedAt: '2025-06-01T12:30:00Z', reason: 'Unpinned' }),
      healthy1,
    );
    assert.equal(t?.to, 'Progressing');
    assert.equal(t?.reason, 'Unpinned');
  });
});
