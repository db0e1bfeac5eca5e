import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiError, isApiError, statusBody } from './status.ts';

test('statusBody: a metav1.Status with reason by code and field causes', () => {
  assert.deepEqual(statusBody(apiError(404, 'gone')), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'gone',
    reason: 'NotFound',
    code: 404,
  });
  const body = statusBody(
    apiError(400, 'bad', { causes: [{ field: 'force', message: 'must be a boolean' }, { message: 'x' }] }),
  );
  assert.equal(body.reason, 'BadRequest');
  assert.deepEqual(body.details, {
    causes: [
      { reason: 'FieldValueInvalid', message: 'must be a boolean', field: 'force' },
      { reason: 'FieldValueInvalid', message: 'x' },
    ],
  });
});

test('isApiError', () => {
  assert.equal(isApiError(apiError(403, 'no')), true);
  assert.equal(isApiError({ code: 200, body: {} }), false);
  assert.equal(isApiError(new Error('x')), false);
});
