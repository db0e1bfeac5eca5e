// describeExecFailure and isTimeout: one row per failure kind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeExecFailure, type ExecFailure, isTimeout, seconds } from './failure.ts';

describe('describeExecFailure', () => {
  const rows: [ExecFailure, string, boolean][] = [
    [{ kind: 'notFound' }, 'the helm command is not installed', false],
    [{ kind: 'spawn', message: 'EACCES' }, 'helm could not be started: EACCES', false],
    [{ kind: 'timeout', timeoutMs: 120_000 }, 'timed out after 120s', true],
    [{ kind: 'timeout', timeoutMs: 200 }, 'timed out after 0.2s', true],
    [{ kind: 'idle', idleMs: 30_000 }, 'no progress for 30s', true],
    [{ kind: 'aborted', reason: 'aborted' }, 'aborted', false],
    [
      { kind: 'aborted', reason: 'the Release is being deleted' },
      'aborted: the Release is being deleted',
      false,
    ],
    [{ kind: 'output', maxBytes: 10 }, 'output exceeds 10 bytes', false],
    [{ kind: 'exit', code: 2, signal: null }, 'exit status 2', false],
    [{ kind: 'exit', code: null, signal: 'SIGSEGV' }, 'exit status SIGSEGV', false],
  ];
  for (const [failure, text, timeout] of rows) {
    it(`${failure.kind}: ${text}`, () => {
      assert.equal(describeExecFailure('helm', failure), text);
      assert.equal(isTimeout(failure), timeout);
    });
  }
  it('seconds rounds to a tenth', () => {
    assert.deepEqual([seconds(1500), seconds(60_000), seconds(1234)], ['1.5', '60', '1.2']);
  });
});
