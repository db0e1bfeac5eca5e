// runBounded against real processes: output, limits, aborts, and that a failure kills the whole
// process group (a background child of the command does not survive it).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExecError, type ExecOptions, runBounded } from './run.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** runBounded of `command args` with a PATH only and 10 s unless `more` says otherwise. */
const run = (command: string, args: readonly string[], more: Partial<ExecOptions> = {}) =>
  runBounded({ command, args, env, timeoutMs: 10_000, ...more });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until pid is gone (init reaps a killed orphan shortly after it dies). */
async function gone(pid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

const failureOf = (kind: string) => (e: unknown) => e instanceof ExecError && e.failure.kind === kind;

describe('runBounded', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'convoy-exec-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns stdout as bytes and stderr as text', async () => {
    const r = await run('sh', ['-c', 'printf out; printf err >&2']);
    assert.equal(r.stdout.toString(), 'out');
    assert.equal(r.stderr, 'err');
  });
  it('passes input on stdin', async () => {
    const r = await run('cat', [], { input: Buffer.from('hi') });
    assert.equal(r.stdout.toString(), 'hi');
  });
  it('rejects with the exit status and stderr', async () => {
    await assert.rejects(
      run('sh', ['-c', 'echo nope >&2; exit 3']),
      (e: unknown) =>
        failureOf('exit')(e) && (e as ExecError).stderr === 'nope\n' && /exit status 3/.test(String(e)),
    );
  });
  it('kills the command when stdout passes its cap', async () => {
    await assert.rejects(run('yes', [], { maxStdoutBytes: 1000 }), failureOf('output'));
  });
  it('says when the program is missing', async () => {
    await assert.rejects(
      run('convoy-no-such-tool', [], { timeoutMs: 1000 }),
      (e: unknown) =>
        failureOf('notFound')(e) && /convoy-no-such-tool command is not installed/.test(String(e)),
    );
  });
  it('rejects an aborted signal before starting', async () => {
    await assert.rejects(
      run('true', [], { timeoutMs: 1000, signal: AbortSignal.abort() }),
      failureOf('aborted'),
    );
  });

  // The command leaves a background child (as git leaves `git remote-http`): every way of ending it early
  // must take that child too.
  const stuck = (name: string) => {
    const pidFile = join(dir, `${name}.pid`);
    return { pidFile, args: ['-c', `sleep 60 & echo $! > ${pidFile}; wait`] };
  };
  const childPid = async (pidFile: string): Promise<number> => {
    for (let i = 0; i < 250; i++) {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      if (text.trim() !== '') return Number(text.trim());
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${pidFile} never written`);
  };

  it('kills the process group at the time limit', async () => {
    const s = stuck('timeout');
    const started = Date.now();
    await assert.rejects(
      run('sh', s.args, { timeoutMs: 500 }),
      (e: unknown) => failureOf('timeout')(e) && /timed out after 0.5s/.test(String(e)),
    );
    assert.ok(Date.now() - started < 5000);
    assert.ok(await gone(await childPid(s.pidFile)), 'the background child outlived the timeout');
  });
  it('kills the process group when there is no output for idleMs', async () => {
    const s = stuck('idle');
    await assert.rejects(
      run('sh', s.args, { timeoutMs: 60_000, idleMs: 400 }),
      (e: unknown) => failureOf('idle')(e) && /no progress for 0.4s/.test(String(e)),
    );
    assert.ok(await gone(await childPid(s.pidFile)));
  });
  it('output keeps an idle command alive', async () => {
    const r = await run('sh', ['-c', 'for i in 1 2 3 4 5; do echo $i; sleep 0.1; done'], { idleMs: 400 });
    assert.equal(r.stdout.toString(), '1\n2\n3\n4\n5\n');
  });
  it('kills the process group when aborted, with the reason', async () => {
    const s = stuck('abort');
    const ac = new AbortController();
    const p = run('sh', s.args, { timeoutMs: 60_000, signal: ac.signal });
    const pid = await childPid(s.pidFile);
    ac.abort(new Error('the Release is being deleted'));
    await assert.rejects(p, (e: unknown) => failureOf('aborted')(e) && /being deleted/.test(String(e)));
    assert.ok(await gone(pid));
  });
});
