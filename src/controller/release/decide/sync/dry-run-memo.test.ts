import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DryRunMemo } from './dry-run-memo.ts';

test('DryRunMemo: a render passed with one client is known to that client only', () => {
  const memo = new DryRunMemo();
  const a = {};
  const b = {};
  memo.passed(a, 'uid-1', 'R1');
  assert.equal(memo.has(a, 'uid-1', 'R1'), true);
  assert.equal(memo.has(b, 'uid-1', 'R1'), false, 'another identity dry-runs it anew');
  assert.equal(memo.has(a, 'uid-2', 'R1'), false, 'another Release (a new uid) dry-runs it anew');
  assert.equal(memo.has(a, 'uid-1', 'R2'), false, 'another render dry-runs anew');
});

test('DryRunMemo: forgotten after a failure', () => {
  const memo = new DryRunMemo();
  const a = {};
  memo.passed(a, 'uid-1', 'R1');
  memo.forget(a, 'uid-1', 'R1');
  assert.equal(memo.has(a, 'uid-1', 'R1'), false);
});

test('DryRunMemo: bounded, the oldest pass forgotten first', () => {
  const memo = new DryRunMemo(2);
  const a = {};
  memo.passed(a, 'u', 'R1');
  memo.passed(a, 'u', 'R2');
  memo.passed(a, 'u', 'R1'); // refreshed: R2 is now the oldest
  memo.passed(a, 'u', 'R3');
  assert.deepEqual(
    ['R1', 'R2', 'R3'].map((r) => memo.has(a, 'u', r)),
    [true, false, true],
  );
});

test('a refusal is remembered per client and render, is not a pass, and goes with forget', () => {
  const memo = new DryRunMemo<object>();
  const client = {};
  const why = { message: 'dry run failed: Gadget app/g: spec.size: Invalid value', httpStatus: 422 };
  memo.refused(client, 'u', 'R', why);
  assert.deepEqual(memo.refusal(client, 'u', 'R'), why);
  assert.equal(memo.has(client, 'u', 'R'), false, 'a refused render is not spared the dry run');
  assert.equal(memo.refusal({}, 'u', 'R'), undefined, 'another client (identity) asks again');
  assert.equal(memo.refusal(client, 'u', 'R2'), undefined, 'another render asks again');
  memo.forget(client, 'u', 'R');
  assert.equal(memo.refusal(client, 'u', 'R'), undefined);
  memo.passed(client, 'u', 'R');
  assert.equal(memo.refusal(client, 'u', 'R'), undefined, 'a pass replaces a refusal');
});
