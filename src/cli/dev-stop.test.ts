// watchStop in a real Node process, as `convoy dev` uses it: a process with two detached children (own
// process groups, like controller-manager and observer) and a directory, stopped by each signal, by its
// output pipe closing, and by Ctrl-C under `tee` (the pipe already gone when the cleanup writes). Each
// time the process must run its cleanup and exit 0: both children gone, the directory removed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../testenv/index.ts';

const DEV_STOP = fileURLToPath(new URL('./dev-stop.ts', import.meta.url));

// SIGUSR2 stands for a progress line of `convoy dev` written after the reader has gone.
const SCRIPT = `
const { watchStop } = await import(${JSON.stringify(DEV_STOP)});
const { spawn } = await import('node:child_process');
const { once } = await import('node:events');
const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const stop = watchStop([process.stdout, process.stderr]);
const keepAlive = setInterval(() => {}, 1 << 30);
const dir = mkdtempSync(join(tmpdir(), 'convoy-dev-stop-child-'));
const kids = [0, 1].map(() => spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }));
process.on('SIGUSR2', () => stop.say('progress'));
stop.say(JSON.stringify({ dir, pids: kids.map((k) => k.pid) }));
await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
stop.say('stopping');
for (const k of kids) {
  const gone = k.exitCode !== null || k.signalCode !== null ? undefined : once(k, 'exit');
  k.kill('SIGTERM');
  await gone;
}
rmSync(dir, { recursive: true, force: true });
stop.say('stopped');
stop.dispose();
clearInterval(keepAlive);
writeFileSync(process.env.REASON_FILE, stop.reason() ?? '');
`;

let scratch = '';
after(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

type Case = {
  readonly name: string;
  /** What the test does once the child is up. */
  readonly act: (child: ReturnType<typeof spawn>) => void;
  readonly reason: RegExp;
};

const cases: readonly Case[] = [
  { name: 'SIGINT (Ctrl-C)', act: (c) => c.kill('SIGINT'), reason: /^SIGINT$/ },
  { name: 'SIGTERM', act: (c) => c.kill('SIGTERM'), reason: /^SIGTERM$/ },
  { name: 'SIGHUP (terminal closed)', act: (c) => c.kill('SIGHUP'), reason: /^SIGHUP$/ },
  {
    name: 'its output pipe closing (EPIPE on the next line)',
    act: (c) => {
      c.stdout?.destroy();
      c.kill('SIGUSR2');
    },
    reason: /^output closed \(EPIPE\)$/,
  },
  {
    name: 'Ctrl-C under tee (the pipe gone before the cleanup writes)',
    act: (c) => {
      c.stdout?.destroy();
      c.kill('SIGINT');
    },
    reason: /^SIGINT$/,
  },
];

for (const c of cases) {
  test(`stopped by ${c.name}: cleans up and exits 0`, async () => {
    scratch ||= await mkdtemp(join(tmpdir(), 'convoy-dev-stop-'));
    const reasonFile = join(scratch, `${cases.indexOf(c)}.reason`);
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      env: { PATH: process.env.PATH, REASON_FILE: reasonFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const first = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (b: Buffer) => {
        buf += b.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(buf.slice(0, nl));
      });
      void exit.then((e) => reject(new Error(`the child exited first (${JSON.stringify(e)}): ${err}`)));
    });
    const started = JSON.parse(first) as { dir: string; pids: number[] };
    assert.equal(started.pids.length, 2);
    for (const pid of started.pids) assert.ok(isAlive(pid), `child ${pid} runs before the stop`);
    assert.ok(existsSync(started.dir));

    c.act(child);

    assert.deepEqual(await exit, { code: 0, signal: null }, err);
    assert.equal(err, '', 'nothing thrown');
    assert.match(await readFile(reasonFile, 'utf8'), c.reason);
    assert.deepEqual(
      started.pids.filter((pid) => isAlive(pid)),
      [],
      'no child survives',
    );
    assert.equal(existsSync(started.dir), false, `${started.dir} is removed`);
  });
}
