// Table test of mapping API responses to KubeApiError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiException } from '@kubernetes/client-node';
import {
  describeCauses,
  fromResponse,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  KubeApiError,
  toKubeError,
} from './errors.ts';

const invalid = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'Release.convoy.kumodo.io "web" is invalid: spec.source: Required value',
  reason: 'Invalid',
  details: {
    name: 'web',
    group: 'convoy.kumodo.io',
    kind: 'Release',
    causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.source' }],
  },
  code: 422,
};

test('fromResponse: a Status body gives reason, message, causes and details', () => {
  const err = fromResponse(422, JSON.stringify(invalid), { method: 'PATCH', path: '/apis/x' });
  assert.equal(err.code, 422);
  assert.equal(err.reason, 'Invalid');
  assert.equal(err.apiMessage, invalid.message);
  assert.deepEqual(err.causes, [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.source' },
  ]);
  assert.deepEqual(err.details, { name: 'web', group: 'convoy.kumodo.io', kind: 'Release' });
  assert.equal(err.message, `PATCH /apis/x: ${invalid.message}`);
  assert.equal(describeCauses(err), 'spec.source: Required value');
  assert.ok(isInvalid(err));
});

test('fromResponse: bodies that are not a Status fall back to the code', () => {
  const rows: ReadonlyArray<readonly [number, unknown, string, string]> = [
    [404, '', 'NotFound', 'HTTP 404'],
    [
      409,
      { reason: 'Conflict', message: 'the object has been modified' },
      'Conflict',
      'the object has been modified',
    ],
    [503, 'upstream connect error', 'ServiceUnavailable', 'upstream connect error'],
    [418, undefined, 'Unknown', 'HTTP 418'],
    [500, '{not json', 'InternalError', '{not json'],
  ];
  for (const [code, body, reason, message] of rows) {
    const err = fromResponse(code, body);
    assert.equal(err.reason, reason, String(code));
    assert.equal(err.apiMessage, message, String(code));
    assert.deepEqual(err.causes, []);
  }
});

test('toKubeError: client-node ApiException becomes KubeApiError; others pass through', () => {
  const mapped = toKubeError(
    new ApiException(404, 'not found', JSON.stringify({ reason: 'NotFound', message: 'x' }), {}),
  );
  assert.ok(mapped instanceof KubeApiError);
  assert.ok(isNotFound(mapped));
  assert.ok(!isConflict(mapped));
  const other = new TypeError('fetch failed');
  assert.equal(toKubeError(other), other);
});

test('isGone: only a 410, whatever the reason says', () => {
  const expired = {
    kind: 'Status',
    code: 410,
    reason: 'Expired',
    message: 'too old resource version: 5 (9)',
  };
  const rows: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ['410 Expired from a watch ERROR event', fromResponse(410, expired, undefined, 'watch-event'), true],
    ['410 as an HTTP answer', fromResponse(410, JSON.stringify(expired)), true],
    ['410 with no body', fromResponse(410, ''), true],
    ['reason Expired on another code', fromResponse(500, { reason: 'Expired', message: 'x' }), false],
    ['reason Gone on another code', fromResponse(404, { reason: 'Gone', message: 'x' }), false],
    ['a network error', Object.assign(new Error('reset'), { code: 'ECONNRESET' }), false],
    ['a plain object with code 410', { code: 410, reason: 'Expired' }, false],
  ];
  for (const [what, err, want] of rows) assert.equal(isGone(err), want, what);
});

test('fromResponse keeps where the Status came from', () => {
  assert.equal(fromResponse(410, '').origin, 'response');
  assert.equal(fromResponse(410, { code: 410 }, undefined, 'watch-event').origin, 'watch-event');
});
