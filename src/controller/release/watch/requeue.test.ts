// Table test of cutShort: which aborted passes record nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReconcileAbortedError } from '../../../runtime/index.ts';
import { SourceFailedError } from '../errors.ts';
import type { Outcome } from '../outcome.ts';
import { cutShort } from './requeue.ts';

const aborted = (cause: 'superseded' | 'deadline') => {
  const c = new AbortController();
  c.abort(new ReconcileAbortedError(cause, `${cause}: test`));
  return c.signal;
};
const failed: Pick<Outcome, 'result'> = {
  result: { kind: 'failed', error: new SourceFailedError('fetch aborted') },
};
const synced: Pick<Outcome, 'result'> = { result: { kind: 'synced', renderRef: 'sha256:a', revision: 'r1' } };
const held: Pick<Outcome, 'result'> = { result: { kind: 'held', reason: 'WaitingForHook', message: 'm' } };

test('cutShort: only a superseded pass whose fetch the abort cut is dropped', () => {
  const cases: Array<[string, Pick<Outcome, 'result'>, AbortSignal | undefined, boolean]> = [
    ['not aborted, failed', failed, new AbortController().signal, false],
    ['no signal', failed, undefined, false],
    ['superseded during the fetch', failed, aborted('superseded'), true],
    ['superseded after a whole sync', synced, aborted('superseded'), false],
    ['superseded while a hook holds it', held, aborted('superseded'), false],
    ['past its deadline (recorded, backed off by the queue)', failed, aborted('deadline'), false],
  ];
  for (const [name, outcome, signal, want] of cases) assert.equal(cutShort(outcome, signal), want, name);
});
