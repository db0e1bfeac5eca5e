// Table test of turning a watch ERROR event's Status into the one error type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGone } from './errors.ts';
import { watchEventError } from './transport.ts';

test('watchEventError: the Status of an ERROR event, marked as coming from the stream', () => {
  const info = { method: 'GET', path: '/api/v1/configmaps?watch=1&resourceVersion=5' };
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, number, string, boolean]> = [
    [
      'too old resource version',
      { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (90)' },
      410,
      'Expired',
      true,
    ],
    ['410 without a reason', { kind: 'Status', code: 410 }, 410, 'Gone', true],
    [
      'internal error',
      { kind: 'Status', code: 500, reason: 'InternalError', message: 'x' },
      500,
      'InternalError',
      false,
    ],
    ['no code at all', { kind: 'Status', message: 'broken' }, 500, 'InternalError', false],
  ];
  for (const [what, status, code, reason, gone] of rows) {
    const err = watchEventError(status, info);
    assert.equal(err.code, code, what);
    assert.equal(err.reason, reason, what);
    assert.equal(err.origin, 'watch-event', what);
    assert.deepEqual(err.request, info, what);
    assert.equal(isGone(err), gone, what);
  }
});
