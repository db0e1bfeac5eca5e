// A test process that dies without calling stop() must not leave control-plane processes
// behind: SIGTERM and a plain exit are handled in-process, SIGKILL by the watchdog.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { isAlive, type ProcessInfo } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

const fixture = new URL('../support/testenv-child.ts', import.meta.url).pathname;

interface Started {
  readonly child: ReturnType<typeof spawn>;
  readonly dir: string;
  readonly processes: readonly ProcessInfo[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(mode: 'wait' | 'exit', workloads: boolean, watchdog: boolean): Promise<Started> {
  const child = spawn(process.execPath, [fixture, mode, workloads ? 'workloads' : ''], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CONVOY_TESTENV_WATCHDOG: watchdog ? '1' : '0' },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then(({ code }) => {
      throw new Error(`fixture exited with ${code} before starting: ${stderr}`);
    }),
  ]);
  const { dir, processes } = JSON.parse(first) as { dir: string; processes: ProcessInfo[] };
  return { child, dir, processes, exited };
}

async function assertAllGone(s: Started, timeoutMs: number): Promise<void> {
  await waitFor(
    'every control-plane process to be gone and the temp dir removed',
    async () => {
      const alive = s.processes.filter((p) => isAlive(p.pid)).map((p) => p.name);
      if (alive.length > 0 || existsSync(s.dir))
        throw new Error(`alive: [${alive}], dir exists: ${existsSync(s.dir)}`);
      return true;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

describe('testenv: no orphans when the test process dies', () => {
  it('SIGKILL of the test process: the watchdog kills everything and removes the dir', async () => {
    const s = await startChild('wait', true, true);
    assert.deepEqual(s.processes.map((p) => p.name).sort(), [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok',
      'watchdog',
    ]);
    assert.ok(s.processes.every((p) => isAlive(p.pid)));
    s.child.kill('SIGKILL');
    assert.equal((await s.exited).signal, 'SIGKILL');
    // The watchdog checks for its parent once a second.
    await assertAllGone(s, 15_000);
  });

  // Without the watchdog, so only the in-process handlers can be what cleans up.
  for (const [name, mode] of [
    ['SIGTERM of the test process: its handler kills everything and the signal still ends it', 'wait'],
    ['exit without stop(): the exit handler kills everything', 'exit'],
  ] as const)
    it(name, async () => {
      const s = await startChild(mode, false, false);
      assert.deepEqual(s.processes.map((p) => p.name).sort(), ['etcd', 'kube-apiserver']);
      if (mode === 'wait') {
        s.child.kill('SIGTERM');
        assert.equal((await s.exited).signal, 'SIGTERM');
      } else assert.equal((await s.exited).code, 0);
      await assertAllGone(s, 15_000);
    });
});
