// convoy's own processes under `convoy dev`: controller-manager and observer run on the same Node binary
// as the CLI, each in its own process group (so the terminal's Ctrl-C reaches only `convoy dev`, which
// then stops them in order) with its JSON log in a file the user can tail.

import { type ChildProcess, spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PROCESS_NODE_FLAGS } from '../runtime/node-flags.ts';
import { type ProcessName, processScript } from './bundled.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ConvoyProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** The log up to the ready line (it can carry what the process chose, e.g. its API's URL). */
  readonly readyLog: string;
  /** Whether it has exited (on its own or stopped). */
  exited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartSpec {
  /** Which process: its bundle, or its sources once they changed since (processScript). */
  readonly name: ProcessName;
  readonly args: readonly string[];
  readonly logPath: string;
  /** The log line that says it is running. */
  readonly readyText: string;
  readonly timeoutMs?: number;
}

export async function startConvoyProcess(spec: StartSpec): Promise<ConvoyProcess> {
  const log = await open(spec.logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...PROCESS_NODE_FLAGS, processScript(ROOT, spec.name), ...spec.args], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
    });
  } finally {
    await log.close();
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name} did not start`);
  let gone = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      resolve();
    }),
  );
  const proc: Omit<ConvoyProcess, 'readyLog'> = {
    name: spec.name,
    pid,
    logPath: spec.logPath,
    exited: () => gone,
    async stop(graceMs = 10_000) {
      if (gone) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (spec.timeoutMs ?? 60_000);
  for (;;) {
    const text = await readFile(spec.logPath, 'utf8').catch(() => '');
    if (text.includes(spec.readyText)) return { ...proc, readyLog: text };
    if (gone || Date.now() > deadline) {
      await proc.stop();
      const tail = text.split('\n').slice(-20).join('\n');
      throw new Error(
        `${spec.name} ${gone ? 'exited' : 'did not get ready'}; last lines of ${spec.logPath}:\n${tail}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
