// What every build from Go modules shares (the control plane in build.ts, the render tools in
// tools.ts): finding Go, a throwaway wrapper module per upstream project, `go` with a clean
// environment and a readable error, and a cross-process lock so one machine builds once.
import { execFile as execFileCb } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
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

/** $`variable`, else $XDG_CACHE_HOME/convoy/`folder` (or ~/.cache/…): where one kind of binary is kept. */
export function cacheBase(variable: string, folder: string): string {
  return (
    process.env[variable] ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'convoy', folder)
  );
}

/**
 * A cache of one set of pinned versions: under $`variable`, else $XDG_CACHE_HOME/convoy/`folder` (or
 * ~/.cache/…), a directory named by their hash, so other versions build beside it and never over it.
 */
export function versionedCacheRoot(variable: string, folder: string, versions: unknown): string {
  const base = cacheBase(variable, folder);
  const key = createHash('sha256').update(JSON.stringify(versions)).digest('hex').slice(0, 12);
  return join(base, key);
}

export interface EnsureBuiltOptions<T extends string> {
  /** The variable naming a directory that already holds them (binDirFromEnv). */
  readonly variable: string;
  readonly names: readonly T[];
  /** The cache (versionedCacheRoot); the binaries go to its bin/. */
  readonly root: string;
  readonly log: (line: string) => void;
  /** Who waits for another process's build, in the log (acquireLock). */
  readonly what?: string;
  /** Builds `missing` into `bin`; runs under the cache's lock. */
  readonly build: (missing: readonly T[], bin: string) => Promise<void>;
}

/**
 * A directory holding every one of `names`: $variable's, else the cache's bin/, built first where some
 * are missing — by one process per machine (the cache's lock), the others then finding them there.
 */
export async function ensureBuilt<T extends string>(opts: EnsureBuiltOptions<T>): Promise<string> {
  const fromEnv = await binDirFromEnv(opts.variable, opts.names);
  if (fromEnv !== undefined) return fromEnv;
  const bin = join(opts.root, 'bin');
  if ((await missingIn(bin, opts.names)).length === 0) return bin;
  await mkdir(opts.root, { recursive: true });
  const release = await acquireLock(join(opts.root, 'build.lock'), opts.log, opts.what);
  try {
    // Another process may have finished the build while we waited for the lock.
    const missing = await missingIn(bin, opts.names);
    if (missing.length > 0) await opts.build(missing, bin);
    return bin;
  } finally {
    await release();
  }
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
