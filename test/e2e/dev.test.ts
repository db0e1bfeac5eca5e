// `convoy dev` driven as a new user would: run it, wait for the example's rollout to be reported
// Succeeded, paste one of the kubectl commands it prints, press Ctrl-C (SIGINT), and find nothing
// left: exit code 0, every process it reported starting gone, every directory it made removed.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile as execFileCb, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isAlive } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The value of the first line matching `re`'s first group; fails the test naming what is missing. */
function printed(out: string, re: RegExp, what: string): string {
  const m = re.exec(out);
  assert.ok(m?.[1], `convoy dev printed no ${what}:\n${out}`);
  return m[1];
}

describe('convoy dev', () => {
  let child: ChildProcess | undefined;
  let out = '';
  let exit: Promise<{ code: number | null; signal: string | null }> | undefined;
  const pids = () => [...out.matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));

  after(async () => {
    // Only when the test failed half-way: stop it the user's way, then make sure.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(timer);
      for (const pid of pids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  test('rolls the example out to Succeeded, its kubectl hint works, and Ctrl-C leaves nothing running', async () => {
    child = spawn(process.execPath, ['src/cmd/convoy.ts', 'dev', '--nodes', '2'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = child;
    proc.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    proc.stderr?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    exit = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));

    await waitFor(
      'convoy dev to report the example rollout Succeeded and print what to try',
      async () => {
        if (proc.exitCode !== null) throw new Error(`convoy dev exited with ${proc.exitCode}:\n${out}`);
        return /^convoy dev: rollout of sha256:\S+ Succeeded$/m.test(out) && out.includes('Press Ctrl-C');
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    assert.match(out, /Progressing/, 'the rollout was shown while it ran');

    const kubeconfig = printed(out, /^ {2}export KUBECONFIG=(\S+)$/m, 'KUBECONFIG');
    const kubectl = printed(out, /^ {2}alias kubectl=(\S+)/m, 'kubectl alias');
    const command = printed(out, /^ {2}kubectl (get releases)\s/m, 'kubectl get releases hint');
    const { stdout } = await execFile(kubectl, command.split(' '), {
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    assert.match(stdout, /^guestbook\s/m, stdout);

    const devDir = printed(out, /^convoy dev: dev dir (\S+)$/m, 'dev dir');
    const cpDir = printed(out, /^convoy dev: control plane up in (\S+)$/m, 'control plane dir');
    const started = pids();
    // etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the watchdog, and convoy's two.
    assert.ok(started.length >= 7, `pids reported: ${started.join(', ')}\n${out}`);
    for (const pid of started) assert.ok(isAlive(pid), `pid ${pid} runs before Ctrl-C`);
    assert.ok(existsSync(devDir) && existsSync(cpDir));

    proc.kill('SIGINT');
    const ended = await exit;
    assert.deepEqual(ended, { code: 0, signal: null }, out);
    assert.match(out, /convoy dev: stopped; nothing left running\.\n$/);
    assert.deepEqual(
      started.filter((pid) => isAlive(pid)),
      [],
      'no process convoy dev started survives it',
    );
    assert.equal(existsSync(devDir), false, `${devDir} is removed`);
    assert.equal(existsSync(cpDir), false, `${cpDir} is removed`);
  });
});
