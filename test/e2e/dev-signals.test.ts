// `convoy dev` stopped the ways that used to leave controller-manager and observer running with parent 1
// and its directories behind: SIGHUP (a closed terminal, tmux) or SIGTERM to a `convoy dev` in its own
// session, Ctrl-C to `convoy dev 2>&1 | tee log` (tee dies with the same Ctrl-C, so the cleanup writes to
// a closed pipe), and its output pipe closing on its own (EPIPE). Each time every process it reported
// starting is gone and every directory it made is removed. dev.test.ts covers a plain Ctrl-C;
// src/cli/dev-stop.test.ts each signal and a closed pipe on their own, without a control plane.
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
  // etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the watchdog, the registry,
  // Prometheus and convoy's two.
  assert.ok(pids.length >= 9, `pids reported: ${pids.join(', ')}\n${out}`);
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

  for (const signal of ['SIGHUP', 'SIGTERM'] as const) {
    test(`on ${signal} in its own session (setsid … >log 2>&1 &; kill -${signal.slice(3)})`, async () => {
      scratch ||= await mkdtemp(join(tmpdir(), 'convoy-dev-signals-'));
      const log = join(scratch, `${signal}.log`);
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

      child.kill(signal);
      assert.deepEqual(await exit, { code: 0, signal: null }, await readFile(log, 'utf8'));
      const out = await readFile(log, 'utf8');
      assert.match(
        out,
        new RegExp(
          `convoy dev: stopping \\(${signal}\\) …\\n[\\s\\S]*convoy dev: stopped; nothing left running\\.\\n$`,
        ),
      );
      assertNothingLeft(s, out);
    });
  }

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
  test('when its output pipe closes while it starts (the reader exits; EPIPE on the next line)', async () => {
    scratch ||= await mkdtemp(join(tmpdir(), 'convoy-dev-signals-'));
    const log = join(scratch, 'pipe.log');
    const pidFile = join(scratch, 'pipe.pid');
    // The reader keeps each line in the log and exits after the controller-manager's: convoy dev goes on
    // starting the observer and writes again (several lines), into a pipe nobody reads. (awk would read
    // the pipe in blocks and see the line only when convoy dev is done writing.)
    const reader = `const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (l) => {
  require('node:fs').appendFileSync(${JSON.stringify(log)}, l + '\\n');
  if (l.includes('started convoy controller-manager')) process.exit(0);
});`;
    const child = spawn(
      'bash',
      [
        '-c',
        `{ echo $BASHPID >${pidFile}; exec "$0" "$@"; } 2>&1 | "$0" -e "$READER"`,
        process.execPath,
        ...DEV,
      ],
      { cwd: ROOT, env: { ...env(), READER: reader }, detached: true, stdio: 'ignore' },
    );
    children.push(child);
    const exit = exited(child);
    const dev = await waitFor('convoy dev to start', async () =>
      Number((await readFile(pidFile, 'utf8')).trim()),
    );
    // Starting takes about 10 s; the rest is a loaded machine.
    await waitFor('convoy dev to exit once its output is gone', async () => !isAlive(dev), {
      timeoutMs: 240_000,
      intervalMs: 500,
    });
    await exit;
    const out = await readFile(log, 'utf8');
    assert.match(out, /started convoy controller-manager/, out);
    const pids = [...out.matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));
    reported.push(...pids);
    const dirs = [...out.matchAll(/^convoy dev: (?:dev dir|control plane up in) (\S+)$/gm)].map(
      (m) => m[1] ?? '',
    );
    // The control plane's processes, the registry and the controller-manager.
    assert.ok(pids.length >= 7, `pids reported: ${pids.join(', ')}\n${out}`);
    assert.equal(dirs.length, 2, out);
    assertNothingLeft({ pids, dirs }, out);
  });
});
