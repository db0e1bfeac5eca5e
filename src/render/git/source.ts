// The git source: one cached bare clone per repository URL; each poll asks the server where the ref the
// Release follows points (git ls-remote) and fetches only when it moved; files are read straight from
// git's object store at the resolved commit (no checkout). The commit SHA is the revision. A fetch for a
// requested sync (a push) reads the server anew and at once (freshness.ts,
// docs/design.md#requested-syncs).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import { SourceError, SourceTimeoutError } from '../errors.ts';
import { isTimeout, seconds } from '../exec/failure.ts';
import type { FetchOptions, Source } from '../source.ts';
import type { CredentialData, GitSourceSpec, SourceOutput } from '../types.ts';
import {
  baseGitEnv,
  checkAuthFitsUrl,
  type GitAuth,
  gitAuthFromSecret,
  type PreparedAuth,
  prepareAuth,
} from './auth.ts';
import { GitCommandError, runGit } from './exec.ts';
import { planRefRead } from './freshness.ts';
import { KeyedLock, Shared } from './lock.ts';
import { redact, tail } from './redact.ts';
import { type GitRef, type GitUrl, normalizeRepoPath, parseGitRef, parseGitUrl } from './spec.ts';

export type GitSourceOptions = {
  /** Where the cached clones live, one bare repository per URL. Created when missing. */
  readonly cacheDir: string;
  /** file:// URLs read the controller's own disk: tests and local development only. */
  readonly allowFileUrls?: boolean;
  /** Limit for each git command that talks to the server (a fetch). Default 2 minutes. */
  readonly timeoutMs?: number;
  /**
   * A fetch that moves less than 1 KiB/s for this long is ended (HTTP: curl's low-speed limit; SSH: the
   * connect timeout and keep-alives). Default 30 s.
   */
  readonly stallMs?: number;
  /** Limit for the files under the path at one commit. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Where SSH keys are written for the length of one fetch. Default the OS temp dir. */
  readonly tmpDir?: string;
  /** The git binary. Default `git` on PATH. */
  readonly git?: string;
  /** The monotonic clock FetchOptions.readAfter is read on. Default performance.now(). */
  readonly now?: () => number;
};

/** A checked spec: what to fetch, from where, with which credentials. */
type Request = {
  readonly url: GitUrl;
  readonly ref: GitRef;
  readonly path: string;
  readonly auth: GitAuth;
  /** One clone per URL and credential: a commit cached with one Release's credentials must not be readable without them. */
  readonly cloneKey: string;
};

/** Names the clone of a URL as read with these credentials (a hash: no secret reaches the file system's names). */
export function cloneKeyOf(url: GitUrl, auth: GitAuth): string {
  if (auth.type === 'none') return url.cacheKey;
  const identity = createHash('sha256').update(JSON.stringify(auth)).digest('hex').slice(0, 16);
  return `${url.cacheKey}-${identity}`;
}

/**
 * Where a read takes the files from: a commit known by SHA, or a local ref just fetched, whose commit the
 * same `git cat-file --batch` that reads the files names (one process fewer on the way of a push).
 */
type At =
  | { readonly kind: 'commit'; readonly sha: string }
  | { readonly kind: 'ref'; readonly ref: string; readonly what: string };

/** Commands that stay local are quick; only fetches may take the full limit. */
const LOCAL_TIMEOUT_MS = 30_000;
export const DEFAULT_GIT_TIMEOUT_MS = 120_000;
export const DEFAULT_GIT_STALL_MS = 30_000;
/** Bytes per second below which a transfer counts as stalled. */
const LOW_SPEED_LIMIT = 1024;

/**
 * The environment that makes git end a stalled transfer by itself: curl's low-speed limit for HTTP(S),
 * and for SSH a connect timeout plus keep-alives (an unanswered keep-alive ends the session). Pure.
 */
export function stallEnv(env: Readonly<Record<string, string>>, stallMs: number): Record<string, string> {
  const s = String(Math.max(1, Math.ceil(stallMs / 1000)));
  const ssh = env.GIT_SSH_COMMAND ?? 'ssh';
  return {
    ...env,
    GIT_HTTP_LOW_SPEED_LIMIT: String(LOW_SPEED_LIMIT),
    GIT_HTTP_LOW_SPEED_TIME: s,
    GIT_SSH_COMMAND: `${ssh} -o ConnectTimeout=${s} -o ServerAliveInterval=${s} -o ServerAliveCountMax=1`,
  };
}

/** git's own words for a transfer it ended for being too slow or unanswered. */
const STALLED = /Operation too slow|Connection timed out|Timeout, server .* not responding|timed out/i;

export class GitSource implements Source<GitSourceSpec> {
  readonly #options: GitSourceOptions;
  readonly #lock = new KeyedLock();
  readonly #shared: Shared<SourceOutput>;
  readonly #env = baseGitEnv(process.env);
  readonly #now: () => number;
  /** Clone and local ref → when the last read of it from the server that succeeded started. */
  readonly #lastRead = new Map<string, number>();
  /** Clones found sound (rev-parse) in this process: later fetches look for their HEAD file only. */
  readonly #sound = new Set<string>();

  constructor(options: GitSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#shared = new Shared(this.#now);
  }

  /** Resolves the ref (fetching when needed) and reads the files under the path at that commit. */
  async fetch(
    spec: GitSourceSpec,
    credentials: CredentialData | undefined,
    signal?: AbortSignal,
    options?: FetchOptions,
  ): Promise<SourceOutput> {
    const req = this.#check(spec, credentials);
    const readAfter = options?.readAfter;
    const pollWindowMs = options?.pollWindowMs;
    // Identical requests share one fetch: it is not aborted by one caller's signal, only bounded by git's
    // own limits, and each caller stops waiting on its own signal. A requested sync joins only a fetch
    // that started after the request was seen.
    const key = `${req.cloneKey}\0${JSON.stringify(req.ref)}\0${req.path}`;
    return this.#shared
      .run(
        key,
        () =>
          this.#lock.run(req.cloneKey, () =>
            this.#withAuth(req, async (git) => {
              const at = await this.#resolve(req, git, undefined, readAfter, pollWindowMs);
              return this.#read(req, at, undefined);
            }),
          ),
        signal,
        readAfter,
      )
      .catch((e: unknown) => {
        if (e instanceof SourceError || signal?.aborted !== true) throw e;
        throw new SourceError(`reading ${req.url.display} stopped: ${abortText(signal.reason)}`);
      });
  }

  /**
   * The commit the spec's ref names now. A branch, tag or the default branch is fetched first; a
   * commit already in the cache is not (a commit cannot move).
   */
  async resolve(
    spec: GitSourceSpec,
    credentials: CredentialData | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const req = this.#check(spec, credentials);
    return this.#lock.run(
      req.cloneKey,
      () =>
        this.#withAuth(req, async (git) => {
          const at = await this.#resolve(req, git, signal);
          return at.kind === 'commit' ? at.sha : git.mustResolve(at.ref, at.what, signal);
        }),
      signal,
    );
  }

  /** The cached clone of a URL read with these credentials (whether or not it exists yet). */
  clonePath(url: string, credentials?: CredentialData): string {
    const parsed = parseGitUrl(url, this.#options.allowFileUrls ?? false);
    return join(this.#options.cacheDir, `${cloneKeyOf(parsed, gitAuthFromSecret(credentials))}.git`);
  }

  #check(spec: GitSourceSpec, credentials: CredentialData | undefined): Request {
    const url = parseGitUrl(spec.url, this.#options.allowFileUrls ?? false);
    const auth = gitAuthFromSecret(credentials);
    checkAuthFitsUrl(auth, url.scheme);
    return {
      url,
      ref: parseGitRef(spec.ref),
      path: normalizeRepoPath(spec.path),
      auth,
      cloneKey: cloneKeyOf(url, auth),
    };
  }

  async #withAuth<T>(req: Request, fn: (git: GitRunner) => Promise<T>): Promise<T> {
    const auth = await prepareAuth(req.auth, this.#env, this.#options.tmpDir ?? tmpdir());
    const prepared = { ...auth, env: stallEnv(auth.env, this.#options.stallMs ?? DEFAULT_GIT_STALL_MS) };
    const dir = join(this.#options.cacheDir, `${req.cloneKey}.git`);
    try {
      await this.#ensureClone(req, prepared);
      return await fn(new GitRunner(dir, prepared, req.url, this.#options, req.auth.type));
    } catch (e) {
      // Whatever failed, the next fetch checks the clone with git again.
      this.#sound.delete(dir);
      // Every failure leaves as a SourceError, whichever git command or file operation it came from.
      if (e instanceof SourceError) throw e;
      const detail =
        e instanceof GitCommandError
          ? redact(tail(e.stderr), prepared.secrets) || e.message
          : errorMessage(e);
      throw new SourceError(`reading ${req.url.display} failed: ${detail}`);
    } finally {
      await prepared.cleanup();
    }
  }

  /** The bare clone of the URL, created (atomically, by rename) when missing or broken. */
  async #ensureClone(req: Request, auth: PreparedAuth): Promise<string> {
    const { url } = req;
    const dir = join(this.#options.cacheDir, `${req.cloneKey}.git`);
    // One git process fewer per fetch: a clone git found sound before is taken as long as its HEAD is
    // there (what a half-removed clone lacks first); a command failing on it sends it back to git's check.
    if (this.#sound.has(dir) && (await stat(join(dir, 'HEAD')).catch(() => undefined)) !== undefined)
      return dir;
    this.#sound.delete(dir);
    const run = (args: string[]) =>
      runGit(args, {
        env: auth.env,
        timeoutMs: LOCAL_TIMEOUT_MS,
        ...(this.#options.git ? { git: this.#options.git } : {}),
      });
    try {
      const { stdout } = await run([`--git-dir=${dir}`, 'rev-parse', '--is-bare-repository']);
      if (stdout.toString().trim() === 'true') {
        this.#sound.add(dir);
        return dir;
      }
    } catch {
      // missing or broken: made anew below
    }
    await mkdir(this.#options.cacheDir, { recursive: true });
    await rm(dir, { recursive: true, force: true });
    const tmp = `${dir}.init-${randomBytes(6).toString('hex')}`;
    try {
      await run(['init', '--bare', '--quiet', tmp]);
      // For people looking into the cache: which repository this hash is.
      await writeFile(join(tmp, 'convoy-url'), `${url.display}\n`);
      await rename(tmp, dir);
      // A new clone has none of the refs read before.
      for (const k of this.#lastRead.keys()) if (k.startsWith(`${req.cloneKey}\0`)) this.#lastRead.delete(k);
      this.#sound.add(dir);
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw new SourceError(`cannot create the git cache for ${url.display}: ${errorMessage(e)}`);
    }
    return dir;
  }

  async #resolve(
    req: Request,
    git: GitRunner,
    signal: AbortSignal | undefined,
    readAfter?: number,
    pollWindowMs?: number,
  ): Promise<At> {
    const { ref } = req;
    const fresh = { readAfter, pollWindowMs };
    switch (ref.type) {
      case 'branch':
      case 'tag': {
        const full = `refs/${ref.type === 'branch' ? 'heads' : 'tags'}/${ref.name}`;
        return this.#readRef(req, git, full, full, `${ref.type} ${ref.name}`, signal, fresh);
      }
      case 'default':
        return this.#readRef(req, git, 'HEAD', 'refs/convoy/HEAD', 'the default branch', signal, fresh);
      case 'commit': {
        const found = await this.#findCommit(req, ref.sha, git, signal);
        return { kind: 'commit', sha: found };
      }
      default:
        return assertNever(ref);
    }
  }

  /** A commit by its (possibly short) SHA: from the cache, else fetched by SHA, else with every branch and tag. */
  async #findCommit(
    req: Request,
    sha: string,
    git: GitRunner,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const cached = await git.resolveLocal(sha, signal);
    if (cached !== undefined) return cached;
    if (sha.length === 40 || sha.length === 64) {
      // Servers that allow it (protocol v2 does by default) send a commit asked for by SHA even
      // when no branch points at it; keep a ref so gc never drops it.
      try {
        await git.fetch([`+${sha}:refs/convoy/commits/${sha}`], `commit ${sha}`, signal);
      } catch {
        // refused (or not there): every branch and tag is fetched below, and that failure is reported
      }
      const fetched = await git.resolveLocal(sha, signal);
      if (fetched !== undefined) return fetched;
    }
    await git.fetch(['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], `commit ${sha}`, signal);
    const found = await git.resolveLocal(sha, signal);
    if (found !== undefined) return found;
    throw new SourceError(
      `commit ${sha} not found in ${req.url.display}` +
        (sha.length < 40 ? ' (a short SHA must be unambiguous and reachable from a branch or tag)' : ''),
    );
  }

  /**
   * Where a branch or tag points, read as fresh as the request needs (planRefRead): from the cache when a
   * read that started after the request already ended, by a fetch at once for a request, by a poll
   * (ls-remote first) otherwise. Runs under the clone's lock, so the local ref stays put until the files
   * are read.
   */
  async #readRef(
    req: Request,
    git: GitRunner,
    remote: string,
    local: string,
    what: string,
    signal: AbortSignal | undefined,
    fresh: { readonly readAfter: number | undefined; readonly pollWindowMs: number | undefined },
  ): Promise<At> {
    const key = `${req.cloneKey}\0${local}`;
    const startedAt = this.#now();
    const plan = planRefRead(fresh.readAfter, this.#lastRead.get(key), startedAt, fresh.pollWindowMs);
    const fetched: At = { kind: 'ref', ref: local, what };
    switch (plan.kind) {
      case 'cached':
        // (A clone made anew forgets its reads, so the ref is there.)
        return fetched;
      case 'fetch':
        await git.fetch([`+${remote}:${local}`], what, signal);
        this.#lastRead.set(key, startedAt);
        return fetched;
      case 'poll': {
        const sha = await git.fetchMoved(remote, local, what, signal);
        this.#lastRead.set(key, startedAt);
        return { kind: 'commit', sha };
      }
      default:
        return assertNever(plan);
    }
  }

  /** The commit `at` names and the files under the path there. Runs under the clone's lock. */
  async #read(req: Request, at: At, signal: AbortSignal | undefined): Promise<SourceOutput> {
    const git = this.#reader(req);
    const rev = at.kind === 'commit' ? at.sha : at.ref;
    // Only error messages need the SHA before the files are read.
    const sha = () =>
      at.kind === 'commit' ? Promise.resolve(at.sha) : git.mustResolve(at.ref, at.what, signal);
    const where = req.path === '' ? `${rev}^{tree}` : `${rev}:${req.path}`;
    const entries: { path: string; object: string; size: number }[] = [];
    // The path is a directory nearly always: list it straight away, and ask what it is only when that
    // fails (one git process fewer per fetch, which is what a push waits for on a busy machine).
    let listing: Buffer | undefined;
    let listError: unknown;
    try {
      listing = await git.local(['ls-tree', '-r', '-l', '-z', '--end-of-options', where], signal);
    } catch (e) {
      listError = e;
    }
    if (listing !== undefined) entries.push(...parseLsTree(listing));
    else {
      let type: string;
      try {
        type = (await git.local(['cat-file', '-t', '--end-of-options', where], signal)).toString().trim();
      } catch {
        throw new SourceError(
          `path ${JSON.stringify(req.path)} not found in ${req.url.display} at commit ${await sha()}`,
        );
      }
      // A tree that could not be listed: the listing's own failure is the error.
      if (type === 'tree') throw listError;
      if (type !== 'blob') {
        throw new SourceError(
          `path ${JSON.stringify(req.path)} in ${req.url.display} at commit ${await sha()} is a ${type}`,
        );
      }
      const size = Number(
        (await git.local(['cat-file', '-s', '--end-of-options', where], signal)).toString().trim(),
      );
      const object = (await git.local(['rev-parse', '--verify', '--end-of-options', where], signal))
        .toString()
        .trim();
      entries.push({ path: req.path.slice(req.path.lastIndexOf('/') + 1), object, size });
    }
    const total = entries.reduce((n, e) => n + e.size, 0);
    const max = this.#options.maxBytes ?? 64 * 1024 * 1024;
    if (total > max) {
      throw new SourceError(
        `the files under ${JSON.stringify(req.path || '/')} in ${req.url.display} at ${await sha()} are ${total} bytes, over the limit of ${max}`,
      );
    }
    const read = await readBlobs(
      git,
      at.kind === 'ref' ? `${at.ref}^{commit}` : undefined,
      [...new Set(entries.map((e) => e.object))],
      total,
      signal,
    );
    const revision = at.kind === 'commit' ? at.sha : read.commit;
    if (revision === undefined)
      throw new SourceError(
        `${at.kind === 'ref' ? at.what : 'the commit'} of ${req.url.display} does not point at a commit`,
      );
    const files = entries
      .map((e) => ({ path: e.path, data: read.blobs.get(e.object) ?? new Uint8Array() }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { revision, files };
  }

  /** Reading needs no credentials: the objects are in the cache. */
  #reader(req: Request): GitRunner {
    const none: PreparedAuth = { env: this.#env, secrets: [], cleanup: async () => {} };
    return new GitRunner(
      join(this.#options.cacheDir, `${req.cloneKey}.git`),
      none,
      req.url,
      this.#options,
      'none',
    );
  }
}

/** git commands against one cached clone, with errors turned into redacted SourceErrors. */
class GitRunner {
  readonly #dir: string;
  readonly #auth: PreparedAuth;
  readonly #url: GitUrl;
  readonly #options: GitSourceOptions;
  readonly #authType: GitAuth['type'];

  constructor(
    dir: string,
    auth: PreparedAuth,
    url: GitUrl,
    options: GitSourceOptions,
    authType: GitAuth['type'],
  ) {
    this.#dir = dir;
    this.#auth = auth;
    this.#url = url;
    this.#options = options;
    this.#authType = authType;
  }

  async fetch(refspecs: readonly string[], what: string, signal: AbortSignal | undefined): Promise<void> {
    const args = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules'];
    try {
      await this.#run(
        [...args, '--end-of-options', this.#url.url, ...refspecs],
        this.#options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
        signal,
      );
    } catch (e) {
      throw this.#error(`fetching ${what} from ${this.#url.display} failed`, e);
    }
  }

  /**
   * Fetches `remote` into `local` only when the server's ref (git ls-remote, one round trip and no pack)
   * differs from the cached one; returns the commit `local` names. A steady poll then runs no fetch.
   */
  async fetchMoved(
    remote: string,
    local: string,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const at = await this.lsRemote(remote, what, signal);
    const cached = await this.#refValue(local, signal);
    if (at === undefined || cached !== at) await this.fetch([`+${remote}:${local}`], what, signal);
    return this.mustResolve(local, what, signal);
  }

  /** The object a ref names on the server, or undefined when the server has no such ref. */
  async lsRemote(ref: string, what: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    let out: Buffer;
    try {
      out = await this.#run(
        ['ls-remote', '--end-of-options', this.#url.url, ref],
        this.#options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
        signal,
      );
    } catch (e) {
      throw this.#error(`fetching ${what} from ${this.#url.display} failed`, e);
    }
    for (const line of out.toString().split('\n')) {
      const [sha, name] = line.split('\t');
      if (name === ref && sha !== undefined && sha !== '') return sha;
    }
    return undefined;
  }

  /** The object a cached ref names as is (a tag object is not peeled), or undefined. */
  async #refValue(ref: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    try {
      return (
        await this.#run(
          ['rev-parse', '--verify', '--quiet', '--end-of-options', ref],
          LOCAL_TIMEOUT_MS,
          signal,
        )
      )
        .toString()
        .trim();
    } catch (e) {
      if (e instanceof GitCommandError && /exit status 1$/.test(e.message)) return undefined;
      throw this.#error(`reading ${ref} in the cache of ${this.#url.display} failed`, e);
    }
  }

  /** The full SHA of a commit-ish in the cache, or undefined when it is not there. */
  async resolveLocal(rev: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    try {
      const out = await this.#run(
        ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
        LOCAL_TIMEOUT_MS,
        signal,
      );
      return out.toString().trim();
    } catch (e) {
      if (e instanceof GitCommandError && /exit status 1$/.test(e.message)) return undefined;
      throw this.#error(`reading ${rev} in the cache of ${this.#url.display} failed`, e);
    }
  }

  async mustResolve(ref: string, what: string, signal: AbortSignal | undefined): Promise<string> {
    const sha = await this.resolveLocal(ref, signal);
    if (sha === undefined)
      throw new SourceError(`${what} of ${this.#url.display} does not point at a commit`);
    return sha;
  }

  async local(
    args: readonly string[],
    signal: AbortSignal | undefined,
    input?: Uint8Array,
    maxStdoutBytes?: number,
  ): Promise<Buffer> {
    return this.#run(args, LOCAL_TIMEOUT_MS, signal, input, maxStdoutBytes);
  }

  async #run(
    args: readonly string[],
    timeoutMs: number,
    signal: AbortSignal | undefined,
    input?: Uint8Array,
    maxStdoutBytes?: number,
  ): Promise<Buffer> {
    const { stdout } = await runGit([`--git-dir=${this.#dir}`, ...args], {
      env: this.#auth.env,
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
      ...(input === undefined ? {} : { input }),
      maxStdoutBytes: maxStdoutBytes ?? 64 * 1024 * 1024,
      ...(this.#options.git ? { git: this.#options.git } : {}),
    });
    return stdout;
  }

  #error(what: string, e: unknown): SourceError {
    if (!(e instanceof GitCommandError)) return new SourceError(`${what}: ${errorMessage(e)}`);
    const detail = redact(tail(e.stderr), this.#auth.secrets);
    const url = this.#url.display;
    if (isTimeout(e.failure)) {
      const ms = e.failure.kind === 'timeout' ? e.failure.timeoutMs : e.failure.idleMs;
      return new SourceTimeoutError(`${what}: ${e.message} (git was stopped)`, url, ms / 1000);
    }
    if (e.failure.kind === 'exit' && STALLED.test(e.stderr)) {
      const ms = this.#options.stallMs ?? DEFAULT_GIT_STALL_MS;
      return new SourceTimeoutError(
        `${what}: the server sent nothing for ${seconds(ms)}s (${detail})`,
        url,
        Math.ceil(ms / 1000),
      );
    }
    const hint = authHint(this.#authType, e.stderr);
    const message = detail === '' ? `${what}: ${e.message}` : `${what}: ${detail}`;
    return new SourceError(hint === undefined ? message : `${what}: ${hint} (${detail})`);
  }
}

/**
 * Git sends a token given as a header without knowing it is a credential, so when the server
 * answers 401 git says it "could not read Username": say what that means.
 */
function authHint(authType: GitAuth['type'], stderr: string): string | undefined {
  if (
    !/could not read (Username|Password)|Authentication failed|HTTP 40[13]|Permission denied \(publickey/.test(
      stderr,
    )
  ) {
    return undefined;
  }
  return authType === 'none'
    ? 'the repository needs credentials; name a Secret in secretRef'
    : 'the repository rejected the credentials in the Secret';
}

/** `git ls-tree -r -l -z`: "<mode> <type> <object> <size>\t<path>\0"; only regular files are kept. */
export function parseLsTree(out: Buffer): { path: string; object: string; size: number }[] {
  const entries: { path: string; object: string; size: number }[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, object, size] = record.slice(0, tab).trim().split(/\s+/);
    // Symlinks (120000) could point outside the path and submodules (commit) are other repositories.
    if (type !== 'blob' || (mode !== '100644' && mode !== '100755') || object === undefined) continue;
    entries.push({ path: record.slice(tab + 1), object, size: Number(size) });
  }
  return entries;
}

/** Room in cat-file's output for the commit read before the blobs (its message is its size). */
const COMMIT_ROOM_BYTES = 1024 * 1024;

/**
 * All blobs at once through `git cat-file --batch`: "<object> <type> <size>\n<bytes>\n" each. With
 * `commit` (a rev such as "refs/heads/main^{commit}"), it is asked first, and the SHA it names comes
 * back as `commit` (undefined: it names no commit) — the SHA without a process of its own.
 */
async function readBlobs(
  git: GitRunner,
  commit: string | undefined,
  objects: readonly string[],
  totalBytes: number,
  signal: AbortSignal | undefined,
): Promise<{ commit: string | undefined; blobs: Map<string, Uint8Array> }> {
  const blobs = new Map<string, Uint8Array>();
  const asked = commit === undefined ? objects : [commit, ...objects];
  if (asked.length === 0) return { commit: undefined, blobs };
  const input = Buffer.from(`${asked.join('\n')}\n`);
  const out = await git.local(
    ['cat-file', '--batch'],
    signal,
    input,
    totalBytes + asked.length * 200 + 1024 + (commit === undefined ? 0 : COMMIT_ROOM_BYTES),
  );
  let at = 0;
  let resolved: string | undefined;
  let first = commit !== undefined;
  while (at < out.length) {
    const nl = out.indexOf(0x0a, at);
    if (nl < 0) break;
    const header = out.subarray(at, nl).toString('utf8');
    const [object, type, size] = header.split(' ');
    if (first) {
      first = false;
      // "<rev> missing" (or ambiguous): the ref names no commit.
      if (type === 'commit' && object !== undefined && size !== undefined) {
        resolved = object;
        at = nl + 1 + Number(size) + 1;
      } else at = nl + 1;
      continue;
    }
    if (object === undefined || type !== 'blob' || size === undefined) {
      throw new SourceError(`git cat-file gave an unexpected answer: ${header}`);
    }
    const start = nl + 1;
    const end = start + Number(size);
    blobs.set(object, new Uint8Array(out.subarray(start, end)));
    at = end + 1;
  }
  return { commit: resolved, blobs };
}

function abortText(reason: unknown): string {
  if (reason instanceof Error) return reason.name === 'AbortError' ? 'aborted' : reason.message;
  return String(reason ?? 'aborted');
}
