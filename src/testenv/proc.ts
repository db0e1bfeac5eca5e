// Starting and stopping the control plane's processes so that none outlives the test run.
// Each process gets its own process group (so a group kill also takes any children) and a
// log file. Three layers make sure they die:
//  1. stop(): SIGTERM to the group, SIGKILL after a grace period.
//  2. exit/SIGINT/SIGTERM handlers of this Node process (installed once) SIGKILL every
//     group still running and remove the temp dirs.
//  3. a watchdog per control plane (`sh` + `tail --pid`), detached, that notices when this
//     Node process is gone, even by SIGKILL where no handler runs, and then SIGKILLs the
//     groups listed in the control plane's pid file and removes its dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Proc {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Set once the process has exited. */
  exit: ExitInfo | undefined;
  readonly exited: Promise<ExitInfo>;
}

export class ProcessExitedError extends Error {
  override name = 'ProcessExitedError';
  readonly proc: Proc;
  constructor(proc: Proc, what: string) {
    super(`${proc.name} (pid ${proc.pid}) exited ${describeExit(proc.exit)} ${what}\n${logTail(proc)}`);
    this.proc = proc;
  }
}

const describeExit = (e: ExitInfo | undefined): string =>
  e === undefined ? '' : e.signal ? `on ${e.signal}` : `with code ${e.code}`;

/** The last lines of a process's log, for error messages. */
export function logTail(proc: Pick<Proc, 'name' | 'logPath'>, lines = 40): string {
  let text: string;
  try {
    text = readFileSync(proc.logPath, 'utf8');
  } catch {
    return `(no log at ${proc.logPath})`;
  }
  const tail = text.trimEnd().split('\n').slice(-lines);
  return `--- last ${tail.length} lines of ${proc.logPath} ---\n${tail.join('\n')}`;
}

/** Everything this Node process started and has not yet seen exit, over all control planes. */
const live = new Set<Proc>();
/** Temp dirs of control planes not yet stopped. */
const liveDirs = new Set<string>();
let handlersInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone (ESRCH) — that is the goal.
  }
}

function killEverythingNow(): void {
  for (const p of live) killGroup(p.pid, 'SIGKILL');
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A process may still be writing; the watchdog removes the dir after it.
    }
  }
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killEverythingNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      // A program that handles the signal itself (convoy dev) stops its control planes gracefully;
      // the exit handler still kills whatever it leaves behind.
      if (process.listenerCount(signal) > 1) return;
      killEverythingNow();
      process.removeListener(signal, handler);
      // Let the signal do what it would have done had we not listened.
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
  }
}

export interface SpawnSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logPath: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

export function spawnLogged(spec: SpawnSpec): Proc {
  installHandlers();
  const fd = openSync(spec.logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(spec.command, spec.args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: spec.env ?? process.env,
      cwd: spec.cwd,
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) {
    // spawn reports ENOENT & co. asynchronously; the pid is missing exactly then.
    throw new Error(`could not start ${spec.name}: ${spec.command} (missing or not executable?)`);
  }
  let resolveExit: (e: ExitInfo) => void = () => {};
  const exited = new Promise<ExitInfo>((resolve) => {
    resolveExit = resolve;
  });
  const proc: Proc = { name: spec.name, pid, logPath: spec.logPath, exit: undefined, exited };
  child.on('error', () => {});
  child.on('exit', (code, signal) => {
    proc.exit = { code, signal };
    live.delete(proc);
    resolveExit(proc.exit);
  });
  // A running control plane must not keep a finished test process alive.
  child.unref();
  live.add(proc);
  return proc;
}

/** SIGTERM to the process group, SIGKILL if it is still there after graceMs. */
export async function stopProc(proc: Proc, graceMs = 5000): Promise<void> {
  if (proc.exit !== undefined) {
    // The leader is gone but a child it left could still be in the group.
    killGroup(proc.pid, 'SIGKILL');
    return;
  }
  killGroup(proc.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
  });
  const outcome = await Promise.race([proc.exited, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    killGroup(proc.pid, 'SIGKILL');
    await proc.exited;
  }
  killGroup(proc.pid, 'SIGKILL');
}

export function trackDir(dir: string): void {
  installHandlers();
  liveDirs.add(dir);
}

export function untrackDir(dir: string): void {
  liveDirs.delete(dir);
}

/**
 * A temp dir whose processes die with this Node process: the exit handlers (2 above) and a watchdog
 * (3 above) guard it from construction until release().
 */
export class GuardedDir {
  readonly dir: string;
  readonly #watchdog: Watchdog;

  constructor(dir: string) {
    this.dir = dir;
    trackDir(dir);
    this.#watchdog = new Watchdog(dir);
  }

  /** The watchdog's pid; -1 when it is disabled. */
  get watchdogPid(): number {
    return this.#watchdog.pid;
  }

  /** The processes the watchdog kills (Watchdog.record). */
  record(procs: Iterable<Proc>): void {
    this.#watchdog.record(procs);
  }

  /** Stops guarding: the caller has stopped the processes and removes the dir. */
  release(): void {
    this.#watchdog.stop();
    untrackDir(this.dir);
  }
}

/** Whether a pid names a running (not zombie) process. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const WATCHDOG = [
  // $0 = parent pid, $1 = pid file, $2 = dir to remove.
  'tail --pid="$0" -f /dev/null 2>/dev/null || while kill -0 "$0" 2>/dev/null; do sleep 1; done',
  'if [ -f "$1" ]; then for p in $(cat "$1"); do kill -KILL "-$p" 2>/dev/null; done; fi',
  'sleep 0.2',
  'rm -rf "$2"',
].join('\n');

/**
 * A watchdog for one control plane's dir: kills what the pid file lists and removes the
 * dir once this Node process is gone. It lives outside the dir's process groups.
 * CONVOY_TESTENV_WATCHDOG=0 turns it off (the orphan tests use that to check the
 * in-process handlers on their own).
 */
export class Watchdog {
  readonly pidFile: string;
  /** -1 when disabled. */
  readonly pid: number;

  constructor(dir: string, enabled = process.env.CONVOY_TESTENV_WATCHDOG !== '0') {
    this.pidFile = join(dir, 'pgids');
    if (!enabled) {
      this.pid = -1;
      return;
    }
    writeFileSync(this.pidFile, '');
    const child = spawn('sh', ['-c', WATCHDOG, String(process.pid), this.pidFile, dir], {
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => {});
    child.unref();
    this.pid = child.pid ?? -1;
  }

  /** Rewrites the list of process groups to kill; exited ones are dropped so no reused pid is hit. */
  record(procs: Iterable<Proc>): void {
    if (this.pid < 0) return;
    const pids = [...procs].filter((p) => p.exit === undefined).map((p) => p.pid);
    const tmp = `${this.pidFile}.tmp`;
    try {
      writeFileSync(tmp, `${pids.join('\n')}\n`);
      renameSync(tmp, this.pidFile);
    } catch {
      // The dir is gone: the control plane was stopped or removed, nothing left to guard.
    }
  }

  stop(): void {
    if (this.pid > 0) killGroup(this.pid, 'SIGKILL');
  }
}
