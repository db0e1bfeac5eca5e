// The names and marks of job checks' Jobs (docs/design.md#verification), shared by both processes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2 } from './testsupport.ts';
import { jobAttemptMarks, jobOfAttempt, verificationJobName } from './verification-job.ts';

test('verificationJobName: release, check, short renderRef and index, at most 63 characters', () => {
  assert.equal(verificationJobName('app', 'smoke', R1, 0), 'app-smoke-1111111111-0');
  const long = 'a'.repeat(60);
  const a = verificationJobName(long, 'smoke', R2, 12);
  const b = verificationJobName(`${long.slice(0, 59)}b`, 'smoke', R2, 12);
  assert.ok(a.length <= 63 && b.length <= 63, `${a} ${b}`);
  assert.notEqual(a, b, 'two long names with a common beginning');
  assert.match(a, /^a+-[0-9a-f]{8}-2222222222-12$/);
  assert.equal(verificationJobName(long, 'smoke', R2, 12), a, 'deterministic');
});

test('jobOfAttempt: only the Job of this check, render and verification start', () => {
  const attempt = { check: 'smoke', renderRef: R2, startedAt: '2030-01-01T00:00:00Z' };
  const marks = jobAttemptMarks(attempt);
  assert.equal(jobOfAttempt(marks, attempt), true);
  assert.equal(jobOfAttempt(marks, { ...attempt, startedAt: '2030-01-01T00:05:00Z' }), false, 'a retry of R');
  assert.equal(jobOfAttempt(marks, { ...attempt, renderRef: R1 }), false, 'another render');
  assert.equal(jobOfAttempt(marks, { ...attempt, check: 'other' }), false, 'another check');
  assert.equal(jobOfAttempt(undefined, attempt), false);
});
