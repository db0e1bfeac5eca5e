// What every build from Go modules shares (the control plane in build.ts, the render tools in
// tools.ts): finding Go, a throwaway wrapper module per upstream project, `go` with a clean
// environment and a readable error, and a cross-process lock so one machine builds once.
import { execFile as execFileCb } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { elapsed, HEARTBEAT_MS } from './build-progress.ts';

const execFile = promisify(execFileCb);

export class TestenvBuildError extends Error {
  override name = 'TestenvBuildError';
}

/** Where a build's progress goes unless the caller says otherwise. */
export const logToStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** Those of `names` that are not in `dir`. */
export async function missingIn<T extends string>(dir: string, names: readonly T[]): Promise<T[]> {
  const missing: T[] = [];
  for (const name of names) {
    try {
      await access(join(dir, name));
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

/**
 * The directory the environment variable `variable` names, when set: it must hold every one of `names`
 * (a TestenvBuildError says which it lacks), and nothing is built.
 */
export async function binDirFromEnv(variable: string, names: readonly string[]): Promise<string | undefined> {
  const dir = process.env[variable];
  if (!dir) return undefined;
  const missing = await missingIn(dir, names);
  if (missing.length > 0) {
    throw new TestenvBuildError(
      `${variable}=${dir} lacks: ${missing.join(', ')} (needs ${names.join(', ')})`,
    );
  }
  return dir;
}

/** `go env GOVERSION`; without Go on PATH, a TestenvBuildError saying `notInstalled`. */
export async function goVersion(notInstalled: string): Promise<string> {
  try {
    const { stdout } = await execFile('go', ['env', 'GOVERSION'], { timeout: 60_000 });
    return stdout.trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TestenvBuildError(`Go is not installed (no 'go' on PATH). ${notInstalled}`);
    }
    throw err;
  }
}

export function goAtLeast(have: string, want: string): boolean {
  const parse = (v: string) =>
    v
      .replace(/^go/, '')
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parse(have), parse(want)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/**
 * The Go on PATH, at least `want`: its GOVERSION, or a TestenvBuildError — `notInstalled` without Go,
 * "`needs` Go >= want" (e.g. "Kubernetes v1.34.0 needs") when it is older.
 */
export async function requireGo(want: string, notInstalled: string, needs: string): Promise<string> {
  const gover = await goVersion(notInstalled);
  if (!goAtLeast(gover, want)) throw new TestenvBuildError(`Go ${gover} is too old: ${needs} Go >= ${want}.`);
  return gover;
}

export const goEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CGO_ENABLED: '0',
  GOFLAGS: '-mod=mod -buildvcs=false',
  GOTOOLCHAIN: 'local',
});

/** Builds take minutes on a small machine; an hour means something hangs. */
const GO_TIMEOUT_MS = 60 * 60 * 1000;

export async function go(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = goEnv(),
): Promise<void> {
  try {
    await execFile('go', args, {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: GO_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const tail = (e.stderr ?? e.message).trim().split('\n').slice(-30).join('\n');
    throw new TestenvBuildError(`go ${args.join(' ')} failed in ${cwd}:\n${tail}`);
  }
}

/** `go mod download -json` of one module version: where its go.mod is, to read it. */
export async function downloadJson(cwd: string, modVersion: string): Promise<{ GoMod: string }> {
  const { stdout } = await execFile('go', ['mod', 'download', '-json', modVersion], {
    cwd,
    env: goEnv(),
    maxBuffer: 16 * 1024 * 1024,
    timeout: GO_TIMEOUT_MS,
  });
  return JSON.parse(stdout) as { GoMod: string };
}

/** A throwaway module per upstream project, so shared dependencies keep the versions each was built with. */
export async function wrapperModule(root: string, name: string, goMod: string): Promise<string> {
  const dir = join(root, 'modules', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'go.mod'), goMod);
  return dir;
}

/** A lock directory holding the owner's pid; a lock whose owner died is taken over. */
export async function acquireLock(
  path: string,
  log: (line: string) => void,
  what = 'testenv',
): Promise<() => Promise<void>> {
  let announced = false;
  const waitStarted = Date.now();
  let lastBeat = waitStarted;
  for (;;) {
    try {
      await mkdir(path);
      await writeFile(join(path, 'pid'), String(process.pid));
      return () => rm(path, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number.parseInt(await readFile(join(path, 'pid'), 'utf8').catch(() => ''), 10);
    if (Number.isFinite(owner) && !alive(owner)) {
      await rm(path, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      log(
        `${what}: another process (pid ${Number.isFinite(owner) ? owner : '?'}) is building; waiting for it`,
      );
      announced = true;
      lastBeat = Date.now();
    } else if (Date.now() - lastBeat >= HEARTBEAT_MS) {
      log(`${what}: still waiting for pid ${owner}'s build: ${elapsed(Date.now() - waitStarted)} so far`);
      lastBeat = Date.now();
    }
    // Waiting on another process's build: there is no event to watch across processes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
