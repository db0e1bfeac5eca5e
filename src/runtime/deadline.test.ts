// afterAbort: what the queue does with a key after its reconcile's signal aborted, one row per case.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AbortCause,
  afterAbort,
  deadlineError,
  isSuperseded,
  ReconcileAbortedError,
  supersededError,
} from './deadline.ts';
import type { ReconcileResult } from './workers.ts';

describe('afterAbort', () => {
  const late = deadlineError(30_000);
  const own = new Error('apply failed');
  const rows: [string, ReconcileResult, AbortCause | undefined, ReconcileResult][] = [
    ['not aborted: done stays done', { kind: 'done' }, undefined, { kind: 'done' }],
    [
      'not aborted: requeueAfter stays',
      { kind: 'requeueAfter', ms: 5 },
      undefined,
      { kind: 'requeueAfter', ms: 5 },
    ],
    [
      'deadline: done becomes an error (backoff)',
      { kind: 'done' },
      'deadline',
      { kind: 'error', error: late },
    ],
    [
      'deadline: requeueAfter becomes an error (backoff)',
      { kind: 'requeueAfter', ms: 5 },
      'deadline',
      { kind: 'error', error: late },
    ],
    [
      'deadline: the reconcile’s own error is kept',
      { kind: 'error', error: own },
      'deadline',
      { kind: 'error', error: own },
    ],
    [
      'superseded: done (the change re-added the key)',
      { kind: 'error', error: own },
      'superseded',
      { kind: 'done' },
    ],
  ];
  for (const [name, result, cause, want] of rows) {
    it(name, () => assert.deepEqual(afterAbort(result, cause, late), want));
  }
  it('the errors say why', () => {
    assert.equal(deadlineError(1500).message, 'the reconcile passed its deadline of 1.5s');
    assert.ok(isSuperseded(supersededError('deletion started')));
    assert.ok(!isSuperseded(late));
    assert.ok(!isSuperseded(new Error('x')));
    assert.ok(late instanceof ReconcileAbortedError);
  });
});
