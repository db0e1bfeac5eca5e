// `convoy dev` stopped the two ways that used to leave controller-manager and observer running with
// parent 1 and its directories behind: SIGHUP to a `convoy dev` in its own session (a closed terminal,
// tmux), and Ctrl-C to `convoy dev 2>&1 | tee log` (tee dies with the same Ctrl-C, so the cleanup writes
// to a closed pipe). Each time every process it reported starting is gone and every directory it made is
// removed. dev.test.ts covers a plain Ctrl-C; src/cli/dev-stop.test.ts each signal and a closed pipe
// on their own, without a control plane.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEV = ['src/cmd/convoy.ts', 'dev', '--no-example', '--nodes', '1'];

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('KUBE')) e[k] = v;
  return e;
}

interface Started {
  readonly pids: readonly number[];
  readonly dirs: readonly string[];
}

/** Waits until the log shows convoy dev up, then reads what it started. */
async function started(log: string, child: ChildProcess): Promise<Started> {
  const out = await waitFor(
    'convoy dev to print "Press Ctrl-C"',
    async () => {
      const text = await readFile(log, 'utf8');
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${text}`);
      return text.includes('Press Ctrl-C') ? text : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 500 },
  );
  const pids = [...out.matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));
  const dirs = [...out.matchAll(/^convoy dev: (?:dev dir|control plane up in) (\S+)$/gm)].map(
    (m) => m[1] ?? '',
  );
  // etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the watchdog, the registry and
  // convoy's two.
  assert.ok(pids.length >= 8, `pids reported: ${pids.join(', ')}\n${out}`);
  assert.equal(dirs.length, 2, out);
  for (const pid of pids) assert.ok(isAlive(pid), `pid ${pid} runs before the stop`);
  for (const dir of dirs) assert.ok(existsSync(dir), dir);
  return { pids, dirs };
}

function assertNothingLeft(s: Started, out: string): void {
  assert.deepEqual(
    s.pids.filter((pid) => isAlive(pid)),
    [],
    `no process convoy dev started survives it:\n${out}`,
  );
  for (const dir of s.dirs) assert.equal(existsSync(dir), false, `${dir} is removed`);
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

describe('convoy dev stops cleanly', () => {
  let scratch = '';
  const children: ChildProcess[] = [];
  const reported: number[] = [];

  after(async () => {
    // Only when a test failed half-way.
    for (const c of children) if (c.exitCode === null && c.pid !== undefined) process.kill(-c.pid, 'SIGKILL');
    for (const pid of reported) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  test('on SIGHUP in its own session (setsid … >log 2>&1 &; kill -HUP)', async () => {
    scratch ||= await mkdtemp(join(tmpdir(), 'convoy-dev-signals-'));
    const log = join(scratch, 'hup.log');
    // detached: Node calls setsid() for the child, as setsid(1) would.
    const fd = openSync(log, 'w');
    const child = spawn(process.execPath, DEV, {
      cwd: ROOT,
      env: env(),
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    children.push(child);
    const exit = exited(child);
    const s = await started(log, child);
    reported.push(...s.pids);

    child.kill('SIGHUP');
    assert.deepEqual(await exit, { code: 0, signal: null }, await readFile(log, 'utf8'));
    const out = await readFile(log, 'utf8');
    assert.match(
      out,
      /convoy dev: stopping \(SIGHUP\) …\n[\s\S]*convoy dev: stopped; nothing left running\.\n$/,
    );
    assertNothingLeft(s, out);
  });

  test('on Ctrl-C under tee (npm run dev 2>&1 | tee dev.log)', async () => {
    scratch ||= await mkdtemp(join(tmpdir(), 'convoy-dev-signals-'));
    const log = join(scratch, 'tee.log');
    // bash without job control keeps the pipeline in its own process group: the terminal's Ctrl-C
    // reaches convoy dev and tee together.
    const pidFile = join(scratch, 'tee.pid');
    const child = spawn(
      'bash',
      [
        '-c',
        `{ echo $BASHPID >${pidFile}; exec "$0" "$@"; } 2>&1 | tee ${log} >/dev/null`,
        process.execPath,
        ...DEV,
      ],
      { cwd: ROOT, env: env(), detached: true, stdio: 'ignore' },
    );
    children.push(child);
    const exit = exited(child);
    const s = await started(log, child);
    reported.push(...s.pids);
    const dev = Number((await readFile(pidFile, 'utf8')).trim());
    assert.ok(isAlive(dev), `convoy dev (pid ${dev}) runs`);

    process.kill(-(child.pid ?? 0), 'SIGINT');
    await exit;
    // bash waits for the whole pipeline; should it not, convoy dev's own exit is what counts.
    await waitFor('convoy dev to exit after Ctrl-C', async () => !isAlive(dev), { timeoutMs: 120_000 });
    const out = await readFile(log, 'utf8');
    assertNothingLeft(s, out);
  });
});
