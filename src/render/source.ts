// The seam between a Release's spec.source and files: one Source per kind of source. The caller
// reads the Secret named by secretRef and passes its decoded data as credentials.
import { SourceError } from './errors.ts';
import type {
  ChartSourceSpec,
  CredentialData,
  GitSourceSpec,
  InlineSourceSpec,
  OciSourceSpec,
  SourceAccess,
  SourceOutput,
  SourceSpec,
} from './types.ts';

export type FetchOptions = {
  /**
   * A sync was requested (a push, `convoy sync`) when this process's performance.now() read this: the
   * revision must come from a read of the source that started at or after it, not from one already in
   * flight (docs/design.md#requested-syncs). Sources that ask the server on every fetch meet it anyway.
   */
  readonly readAfter?: number;
  /**
   * An interval poll (no readAfter) takes the ref as a read of the same repository and ref found it when
   * that read started less than this many milliseconds ago: the Release's interval, so a repository
   * shared by many Releases is asked once per interval, not once per Release and wake-up
   * (docs/design.md#requested-syncs). Undefined or 0: every poll asks the server.
   */
  readonly pollWindowMs?: number;
};

export interface Source<S> {
  /**
   * Resolves the spec to a revision and returns the files under its path at that revision.
   * Rejects with SourceError.
   */
  fetch(
    spec: S,
    credentials: CredentialData | undefined,
    signal?: AbortSignal,
    options?: FetchOptions,
  ): Promise<SourceOutput>;
}

export type Sources = {
  readonly inline: Source<InlineSourceSpec>;
  readonly git?: Source<GitSourceSpec>;
  readonly oci?: Source<OciSourceSpec>;
  readonly chart?: Source<ChartSourceSpec>;
};

/** Fetches whichever source the spec names; exactly one must be set. */
export async function fetchSource(
  spec: SourceSpec,
  credentials: CredentialData | undefined,
  sources: Sources,
  signal?: AbortSignal,
  options?: FetchOptions,
): Promise<SourceOutput> {
  const fetch = namedSource(spec, sources);
  const out = await fetch(credentials, signal, options);
  return { ...out, access: sourceAccess(spec, credentials) };
}

/** The host of the source's URL (no host for file:// and inline), its credentials and insecure flag. */
export function sourceAccess(spec: SourceSpec, credentials: CredentialData | undefined): SourceAccess {
  const url = spec.git?.url ?? spec.oci?.url ?? spec.chart?.url;
  const host = url === undefined ? undefined : urlHost(url);
  return {
    ...(credentials === undefined ? {} : { credentials }),
    ...(host === undefined ? {} : { host }),
    ...(spec.oci?.insecure === true ? { insecure: true } : {}),
  };
}

/** host[:port] of an http(s), oci, ssh or scp-like (user@host:path) URL. */
export function urlHost(url: string): string | undefined {
  const scp = /^[^/:@]+@([^/:]+):/.exec(url);
  if (scp !== null) return scp[1];
  try {
    const host = new URL(url.replace(/^oci:\/\//, 'https://')).host;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

type Fetch = (
  credentials: CredentialData | undefined,
  signal?: AbortSignal,
  options?: FetchOptions,
) => Promise<SourceOutput>;

/** The fetch of the one source the spec sets: a SourceError when it sets none or several, or one not enabled. */
function namedSource(spec: SourceSpec, sources: Sources): Fetch {
  const set = (['git', 'oci', 'chart', 'inline'] as const).filter((k) => spec[k] !== undefined);
  if (set.length !== 1) {
    throw new SourceError(
      `spec.source must set exactly one of git, oci, chart, inline (found ${set.join(', ') || 'none'})`,
    );
  }
  const { inline, git, oci, chart } = spec;
  if (inline !== undefined) return (credentials, signal) => sources.inline.fetch(inline, credentials, signal);
  if (git !== undefined) {
    const source = enabled(sources.git, 'git');
    return (credentials, signal, options) => source.fetch(git, credentials, signal, options);
  }
  if (oci !== undefined) {
    const source = enabled(sources.oci, 'oci');
    return (credentials, signal, options) => source.fetch(oci, credentials, signal, options);
  }
  if (chart !== undefined) {
    const source = enabled(sources.chart, 'chart');
    return (credentials, signal, options) => source.fetch(chart, credentials, signal, options);
  }
  throw new SourceError('spec.source names no source');
}

function enabled<S>(source: Source<S> | undefined, kind: string): Source<S> {
  if (source === undefined) throw new SourceError(`${kind} sources are not enabled`);
  return source;
}

/**
 * The Secrets of the namespace a source reads, in order: their decoded data is merged into the
 * credentials handed to fetch (git: secretRef; oci: secretRef with the docker config, then
 * certSecretRef with ca.crt).
 */
export function sourceSecretNames(spec: SourceSpec): string[] {
  const names = [
    spec.git?.secretRef?.name,
    spec.oci?.secretRef?.name,
    spec.oci?.certSecretRef?.name,
    spec.chart?.secretRef?.name,
    spec.chart?.certSecretRef?.name,
  ];
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/** A Secret's `data` (base64, as the API returns it) as the credentials a Source takes. */
export function credentialsFromSecretData(
  data: Readonly<Record<string, string>> | undefined,
): CredentialData {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}
