// The chart source (spec.source.chart): a chart in a Helm HTTP repository, as `helm pull --repo`
// finds it — the repository's index.yaml, the newest version matching `version` (exact, a semver
// range, or by default the newest release), its archive from the index's URL checked against the
// index's digest, then unpacked by the same hardened reader as OCI artifacts (oci/tar.ts). The
// revision is "<version>@sha256:<digest of the archive>". Basic auth from secretRef (username,
// password), a CA bundle from certSecretRef (ca.crt); every request bounded (src/lib/http-exchange.ts). An archive
// already read is kept, so an interval reconcile of an unchanged chart costs one index request — and
// that request is shared, once per poll window, by every Release asking for the same chart and version
// range from the same repository (../fresh-reads.ts).
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { errorMessage } from '../../lib/errors.ts';
import { BodyTooLargeError, exchange, type HttpResponse, HttpTimeoutError } from '../../lib/http-exchange.ts';
import { SourceError } from '../errors.ts';
import { FreshReads } from '../fresh-reads.ts';
import { caBundleOf } from '../oci/auth.ts';
import { ArchiveError, DEFAULT_EXTRACT_LIMITS, extractTarGz } from '../oci/tar.ts';
import { newestMatching, parseRange, parseVersion, SemverRangeError } from '../semver.ts';
import type { FetchOptions, Source } from '../source.ts';
import type { ChartSourceSpec, CredentialData, SourceFile, SourceOutput } from '../types.ts';

export type ChartSourceOptions = {
  /** Limit of each request (default 60 s) and of silence within one (default 20 s). */
  readonly timeoutMs?: number;
  readonly idleMs?: number;
  /** Largest index.yaml read (default 32 MiB). */
  readonly maxIndexBytes?: number;
  /** Charts kept in memory (default 32). */
  readonly cacheEntries?: number;
};

const FIELD = 'spec.source.chart';

type IndexEntry = { version?: unknown; digest?: unknown; urls?: unknown };

/** What the index says of the version a Release asks for: all that is kept of it. */
type Pick = {
  readonly version: string;
  /** The archive's URL, relative to indexUrl. */
  readonly first: string;
  readonly indexUrl: string;
  /** The digest the index gives (hex), if any. */
  readonly wanted: string | undefined;
};

export class ChartRepoSource implements Source<ChartSourceSpec> {
  readonly #o: ChartSourceOptions;
  readonly #cache = new Map<string, readonly SourceFile[]>();
  readonly #picks = new FreshReads<Pick>();

  constructor(options: ChartSourceOptions = {}) {
    this.#o = options;
  }

  async fetch(
    spec: ChartSourceSpec,
    credentials: CredentialData | undefined,
    signal?: AbortSignal,
    options?: FetchOptions,
  ): Promise<SourceOutput> {
    let base: URL;
    try {
      base = new URL(spec.url.endsWith('/') ? spec.url : `${spec.url}/`);
    } catch {
      throw new SourceError(`${FIELD}.url: ${JSON.stringify(spec.url)} is not a URL`);
    }
    if (base.username !== '' || base.password !== '') {
      throw new SourceError(
        `${FIELD}.url: credentials in the URL are refused: put them in the secretRef Secret`,
      );
    }
    const caPem = caBundleOf(credentials, `${FIELD}.certSecretRef`);
    const username = credentials?.username;
    const password = credentials?.password;
    const headers: Record<string, string> =
      username !== undefined && password !== undefined
        ? { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` }
        : {};
    const get = (url: URL, maxBodyBytes: number, what: string, signal: AbortSignal | undefined) =>
      this.#get(url, headers, maxBodyBytes, what, caPem, base, signal);
    const identity = createHash('sha256')
      .update(JSON.stringify([headers, caPem ?? '']))
      .digest('hex')
      .slice(0, 16);

    // Shared with every Release on the same chart and range: the read runs without this caller's signal.
    const { version, first, indexUrl, wanted } = await this.#picks.read(
      `${base.href}#${spec.name}#${JSON.stringify(spec.version ?? '')}#${identity}`,
      options,
      async () => {
        const index = await get(
          new URL('index.yaml', base),
          this.#o.maxIndexBytes ?? 32 * 1024 * 1024,
          'index.yaml',
          undefined,
        );
        return pickFromIndex(index, spec, base);
      },
      signal,
    );
    const key = `${base.href}#${spec.name}@${version}#${wanted ?? first}#${identity}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined && wanted !== undefined) {
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return { revision: `${version}@sha256:${wanted}`, files: cached };
    }
    const archiveUrl = new URL(first, indexUrl);
    const archive = await get(
      archiveUrl,
      DEFAULT_EXTRACT_LIMITS.maxCompressedBytes,
      `chart ${spec.name} ${version}`,
      signal,
    );
    const digest = createHash('sha256').update(archive.body).digest('hex');
    if (wanted !== undefined && wanted !== digest) {
      throw new SourceError(
        `${FIELD}: the archive of chart ${spec.name} ${version} (${archiveUrl.pathname}) has digest sha256:${digest}, the index says sha256:${wanted}`,
      );
    }
    let files: SourceFile[];
    try {
      files = chartFiles(await extractTarGz(archive.body), spec.name);
    } catch (e) {
      if (e instanceof ArchiveError) {
        throw new SourceError(
          `${FIELD}: the archive of chart ${spec.name} ${version} is refused: ${e.message}`,
        );
      }
      throw e;
    }
    this.#cache.set(key, files);
    while (this.#cache.size > (this.#o.cacheEntries ?? 32)) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    return { revision: `${version}@sha256:${digest}`, files };
  }

  async #get(
    url: URL,
    headers: Readonly<Record<string, string>>,
    maxBodyBytes: number,
    what: string,
    caPem: string | undefined,
    base: URL,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponse> {
    // The credentials go only to the repository's own host (exchange drops them on a redirect elsewhere).
    const own = url.host === base.host ? headers : {};
    let res: HttpResponse;
    try {
      res = await exchange(
        { method: 'GET', url, headers: own, maxBodyBytes },
        {
          timeoutMs: this.#o.timeoutMs ?? 60_000,
          idleMs: this.#o.idleMs ?? 20_000,
          insecure: url.protocol === 'http:',
          ...(caPem === undefined ? {} : { caPem }),
          ...(signal === undefined ? {} : { signal }),
        },
      );
    } catch (e) {
      if (e instanceof HttpTimeoutError || e instanceof BodyTooLargeError) {
        throw new SourceError(`${FIELD}: ${what} from ${url.host}: ${e.message}`);
      }
      const code = (e as NodeJS.ErrnoException).code ?? '';
      const tls = /CERT|SELF_SIGNED|VERIFY|TLS/.test(code);
      throw new SourceError(
        `${FIELD}.${tls ? 'certSecretRef' : 'url'}: ${what} from ${url.host}: ${errorMessage(e)}`,
      );
    }
    if (res.status === 401 || res.status === 403) {
      throw new SourceError(
        `${FIELD}.secretRef: ${url.host} answered ${res.status} for ${what}: ${res.status === 401 ? 'the credentials are missing or wrong' : 'access is denied'}`,
      );
    }
    if (res.status === 404)
      throw new SourceError(`${FIELD}.url: ${url.href} answered 404 (no ${what} there)`);
    if (res.status !== 200)
      throw new SourceError(`${FIELD}.url: ${url.host} answered ${res.status} for ${what}`);
    return res;
  }
}

/** The index's entries of one chart, or why there are none. */
function entriesOf(body: Uint8Array, name: string, base: URL): IndexEntry[] {
  let doc: unknown;
  try {
    doc = parse(Buffer.from(body).toString('utf8'), { maxAliasCount: 100 });
  } catch (e) {
    throw new SourceError(`${FIELD}.url: the index.yaml of ${base.href} is not YAML: ${errorMessage(e)}`);
  }
  const all = (doc as { entries?: unknown } | null)?.entries;
  if (all === null || typeof all !== 'object') {
    throw new SourceError(`${FIELD}.url: the index.yaml of ${base.href} has no entries`);
  }
  const list = (all as Record<string, unknown>)[name];
  if (!Array.isArray(list) || list.length === 0) {
    const names = Object.keys(all).sort();
    const shown = names.slice(0, 10).join(', ') + (names.length > 10 ? `, … (${names.length})` : '');
    throw new SourceError(
      `${FIELD}.name: no chart ${JSON.stringify(name)} in ${base.href} (charts: ${shown || 'none'})`,
    );
  }
  return list.filter((e): e is IndexEntry => e !== null && typeof e === 'object');
}

/** The version `spec.version` names: itself when the index has it, else the newest in its range. */
export function pickVersion(entries: readonly IndexEntry[], spec: ChartSourceSpec, base: URL): string {
  const versions = entries.map((e) => e.version).filter((v): v is string => typeof v === 'string');
  const wanted = spec.version ?? '*';
  if (spec.version !== undefined && versions.includes(wanted)) return wanted;
  let range: ReturnType<typeof parseRange>;
  try {
    range = parseRange(wanted);
  } catch (e) {
    if (e instanceof SemverRangeError) throw new SourceError(`${FIELD}.version: ${e.message}`);
    throw e;
  }
  const picked = newestMatching(versions, range);
  if (picked === undefined) {
    const sorted = versions.filter((v) => parseVersion(v) !== undefined).slice(0, 10);
    throw new SourceError(
      `${FIELD}.version: no version of chart ${spec.name} in ${base.href} matches ${JSON.stringify(wanted)} (versions: ${sorted.join(', ') || 'none'})`,
    );
  }
  return picked;
}

/** The archive's files without its top folder (`web/Chart.yaml` → `Chart.yaml`). */
function chartFiles(files: readonly SourceFile[], name: string): SourceFile[] {
  const top = files[0]?.path.split('/')[0] ?? '';
  const inTop = files.every((f) => f.path.startsWith(`${top}/`));
  if (top === '' || !inTop || !files.some((f) => f.path === `${top}/Chart.yaml`)) {
    throw new SourceError(`${FIELD}: the archive of chart ${name} has no <chart>/Chart.yaml`);
  }
  return files.map((f) => ({ path: f.path.slice(top.length + 1), data: f.data }));
}

/** The version of the chart the spec asks for, as the index gives it: its archive's URL and digest. */
function pickFromIndex(index: HttpResponse, spec: ChartSourceSpec, base: URL): Pick {
  const entries = entriesOf(index.body, spec.name, base);
  const version = pickVersion(entries, spec, base);
  const entry = entries.find((e) => e.version === version);
  const urls = Array.isArray(entry?.urls) ? entry.urls.filter((u): u is string => typeof u === 'string') : [];
  const first = urls[0];
  if (first === undefined) {
    throw new SourceError(`${FIELD}: the index of ${base.href} gives chart ${spec.name} ${version} no URL`);
  }
  const wanted = typeof entry?.digest === 'string' ? entry.digest.replace(/^sha256:/, '') : undefined;
  return { version, first, indexUrl: index.url.href, wanted };
}
