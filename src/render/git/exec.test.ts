// runGit against the real git binary: output, input, failures, limits and aborts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseGitEnv } from './auth.ts';
import { GitCommandError, runGit } from './exec.ts';

const env = baseGitEnv(process.env);

describe('runGit', () => {
  it('returns stdout as bytes', async () => {
    const { stdout } = await runGit(['--version'], { env, timeoutMs: 10_000 });
    assert.match(stdout.toString(), /^git version \d/);
  });
  it('passes input on stdin', async () => {
    const { stdout } = await runGit(['hash-object', '--stdin'], {
      env,
      timeoutMs: 10_000,
      input: Buffer.from('hello\n'),
    });
    assert.equal(stdout.toString().trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');
  });
  it('rejects with the exit status and stderr', async () => {
    await assert.rejects(
      runGit(['rev-parse', '--verify', 'no-such-ref'], { env, timeoutMs: 10_000, cwd: '/' }),
      (e: unknown) =>
        e instanceof GitCommandError &&
        /exit status 128/.test(e.message) &&
        /not a git repository/.test(e.stderr),
    );
  });
  it('rejects when the output is too large', async () => {
    await assert.rejects(
      runGit(['help', '-a'], { env, timeoutMs: 10_000, maxStdoutBytes: 10 }),
      /output exceeds 10 bytes/,
    );
  });
  it('rejects an aborted signal before starting', async () => {
    await assert.rejects(
      runGit(['--version'], { env, timeoutMs: 10_000, signal: AbortSignal.abort() }),
      /aborted/,
    );
  });
  it('kills a command that is aborted while it runs', async () => {
    const ac = new AbortController();
    const started = Date.now();
    // sleep stands in for a git that hangs; runGit takes the binary from options for this.
    const p = runGit(['30'], { env, timeoutMs: 60_000, signal: ac.signal, git: 'sleep' });
    setImmediate(() => ac.abort());
    await assert.rejects(p, /aborted/);
    assert.ok(Date.now() - started < 10_000);
  });
  it('kills a command that runs past its time limit', async () => {
    await assert.rejects(runGit(['5'], { env, timeoutMs: 200, git: 'sleep' }), /timed out after 0.2s/);
  });
  it('says when git is missing', async () => {
    await assert.rejects(
      runGit(['x'], { env, timeoutMs: 1000, git: 'convoy-no-such-git' }),
      /the convoy-no-such-git command is not installed/,
    );
  });
});
