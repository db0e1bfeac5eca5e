// The Prometheus binary the tests and `convoy dev` verify renders against: Debian's `prometheus`
// package, never installed system-wide (its maintainer scripts would add a user and start a service):
// `apt-get download` into a temp dir, `dpkg-deb -x`, and only usr/bin/prometheus kept in the tools
// cache. The first call on a machine downloads (seconds), later calls are instant. Every command is
// bounded and its process group killed (runBounded), and one process per machine fetches (a lock).
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../lib/errors.ts';
import { ExecError, runBounded } from '../render/exec/run.ts';
import { executable } from './executable.ts';
import { acquireLock, cacheBase, logToStderr, TestenvBuildError } from './gobuild.ts';

/** The upstream version Debian's package must carry (bookworm ships 2.42.0+ds-…). */
export const PROMETHEUS_VERSION = '2.42.0';

/** A path to a Prometheus binary to use instead (nothing is downloaded). */
const OVERRIDE = 'CONVOY_PROMETHEUS_BIN';

export interface PrometheusBinaryOptions {
  readonly log?: (line: string) => void;
  /** Limit of each apt-get / dpkg-deb command (default 300 s). */
  readonly timeoutMs?: number;
}

/** The folder holding the binary: <tools cache>/prometheus-<version>/. */
export function prometheusCacheDir(): string {
  return join(cacheBase('CONVOY_TOOLS_CACHE', 'tools'), `prometheus-${PROMETHEUS_VERSION}`);
}

/**
 * The path of a Prometheus binary: $CONVOY_PROMETHEUS_BIN, else the cached one, fetched from Debian's
 * package first when missing. A TestenvBuildError says which step failed and what it printed.
 */
export async function ensurePrometheus(opts: PrometheusBinaryOptions = {}): Promise<string> {
  const override = process.env[OVERRIDE];
  if (override) {
    if (!(await executable(override))) {
      throw new TestenvBuildError(`${OVERRIDE}=${override} is not an executable file`);
    }
    return override;
  }
  const dir = prometheusCacheDir();
  const bin = join(dir, 'prometheus');
  if (await executable(bin)) return bin;
  const log = opts.log ?? logToStderr;
  await mkdir(dir, { recursive: true });
  const release = await acquireLock(join(dir, 'fetch.lock'), log, 'prometheus');
  try {
    // Another process may have fetched it while we waited for the lock.
    if (!(await executable(bin))) await fetchFromDebian(bin, opts.timeoutMs ?? 300_000, log);
    return bin;
  } catch (err) {
    // Off Debian (no apt-get, no such package) the way out is a binary of one's own.
    throw new TestenvBuildError(
      `${errorMessage(err)}\nOr set ${OVERRIDE} to a Prometheus ${PROMETHEUS_VERSION} binary.`,
      { cause: err },
    );
  } finally {
    await release();
  }
}

async function fetchFromDebian(bin: string, timeoutMs: number, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), 'convoy-prometheus-deb-'));
  try {
    log(`prometheus: fetching Debian's prometheus package into ${work} (first time only)`);
    const deb = await downloadDeb(work, timeoutMs);
    const debVersion = (await step('dpkg-deb', ['-f', deb, 'Version'], work, timeoutMs)).trim();
    if (!debVersion.startsWith(`${PROMETHEUS_VERSION}+`) && debVersion !== PROMETHEUS_VERSION) {
      throw new TestenvBuildError(
        `Debian's prometheus package is ${debVersion}, convoy's testenv expects ${PROMETHEUS_VERSION}`,
      );
    }
    await step('dpkg-deb', ['-x', deb, join(work, 'root')], work, timeoutMs);
    const extracted = join(work, 'root', 'usr', 'bin', 'prometheus');
    // Runs here only when the libraries it links against are present (Debian's links libc alone).
    const version = await step(extracted, ['--version'], work, 30_000);
    if (!version.includes(PROMETHEUS_VERSION)) {
      throw new TestenvBuildError(`${extracted} --version printed no ${PROMETHEUS_VERSION}:\n${version}`);
    }
    const partial = `${bin}.partial`;
    await rm(partial, { force: true });
    await rename(extracted, partial);
    // One atomic rename: a process starting meanwhile finds the binary whole or not at all.
    await rename(partial, bin);
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    await writeFile(`${bin}.json`, `${JSON.stringify({ source: 'debian', package: debVersion, seconds })}\n`);
    log(`prometheus: ${debVersion} from Debian in ${seconds}s → ${bin}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `apt-get download prometheus` into `work`; `apt-get update` first only when apt does not know it. */
async function downloadDeb(work: string, timeoutMs: number): Promise<string> {
  try {
    await step('apt-get', ['download', 'prometheus'], work, timeoutMs);
  } catch (err) {
    const said = err instanceof TestenvBuildError ? err.message : '';
    if (!/Unable to locate package|has no installation candidate|Can't select candidate/.test(said))
      throw err;
    await step('apt-get', ['update'], work, timeoutMs);
    await step('apt-get', ['download', 'prometheus'], work, timeoutMs);
  }
  const debs = (await readdir(work)).filter((f) => f.startsWith('prometheus_') && f.endsWith('.deb'));
  const [deb] = debs;
  if (deb === undefined || debs.length > 1) {
    throw new TestenvBuildError(`apt-get download prometheus left ${debs.length} .deb files in ${work}`);
  }
  return join(work, deb);
}

/** One bounded command; its stdout, or a TestenvBuildError with what it printed on stderr. */
async function step(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.DEBIAN_FRONTEND = 'noninteractive';
  try {
    const { stdout } = await runBounded({ command, args, cwd, env, timeoutMs, maxStdoutBytes: 1024 * 1024 });
    return stdout.toString('utf8');
  } catch (err) {
    const stderr = err instanceof ExecError && err.stderr.trim() !== '' ? `\n${err.stderr.trim()}` : '';
    throw new TestenvBuildError(`${command} ${args.join(' ')} failed: ${errorMessage(err)}${stderr}`, {
      cause: err,
    });
  }
}
