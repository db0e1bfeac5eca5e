// The OCI source (spec.source.oci): an artifact in Flux's OCIRepository format — an OCI image manifest
// whose layer is a tar+gzip of manifests — found by tag, by the newest tag matching a semver range, or
// by digest. The manifest digest is the revision. An artifact already read is kept (by repository,
// digest and credentials) so an interval reconcile of an unchanged tag costs one manifest request and
// a digest ref none; and the manifest of a tag or range is asked once per poll window by all the
// Releases on it (fresh-reads.ts). The layer is bounded and unpacked by tar.ts, which refuses hostile
// entries.
import { createHash } from 'node:crypto';
import { SourceError } from '../errors.ts';
import { FreshReads } from '../fresh-reads.ts';
import { newestMatching } from '../semver.ts';
import type { FetchOptions, Source } from '../source.ts';
import type { CredentialData, OciSourceSpec, SourceFile, SourceOutput } from '../types.ts';
import { caBundleOf, credentialsFor, DOCKER_CONFIG_KEY, type RegistryCredentials } from './auth.ts';
import { type Descriptor, type Manifest, MEDIA, RegistryClient, RegistryError } from './client.ts';
import { describeRef, type OciRef, type OciRepo, parseOciRef, parseOciUrl } from './reference.ts';
import { ArchiveError, DEFAULT_EXTRACT_LIMITS, type ExtractLimits, extractTarGz } from './tar.ts';

export type OciSourceOptions = {
  /** Limit of each registry request (default 60 s) and of silence within one (default 20 s). */
  readonly timeoutMs?: number;
  readonly idleMs?: number;
  readonly limits?: Partial<ExtractLimits>;
  /** Artifacts kept in memory (default 32), and their unpacked bytes at most (default 128 MiB). */
  readonly cacheEntries?: number;
  readonly cacheBytes?: number;
  /** Tags listed for a semver range at most (default 10000). */
  readonly maxTags?: number;
};

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const FIELD = 'spec.source.oci';

export class OciSource implements Source<OciSourceSpec> {
  readonly #o: OciSourceOptions;
  readonly #limits: ExtractLimits;
  /** cache key → files of the whole artifact; a Map in insertion order is the LRU. */
  readonly #cache = new Map<string, readonly SourceFile[]>();
  #cacheBytes = 0;
  /** The manifest a tag or range names, by repository, ref and credentials. */
  readonly #manifests = new FreshReads<{ readonly reference: string; readonly manifest: Manifest }>();

  constructor(options: OciSourceOptions = {}) {
    this.#o = options;
    this.#limits = { ...DEFAULT_EXTRACT_LIMITS, ...options.limits };
  }

  /** Credentials from the merged data of secretRef (docker config) and certSecretRef (ca.crt). */
  async fetch(
    spec: OciSourceSpec,
    credentials: CredentialData | undefined,
    signal?: AbortSignal,
    options?: FetchOptions,
  ): Promise<SourceOutput> {
    const repo = parseOciUrl(spec.url, `${FIELD}.url`);
    const creds = credentialsFor(credentials, repo.host, `${FIELD}.secretRef`);
    const caPem = caBundleOf(credentials, `${FIELD}.certSecretRef`);
    const hint =
      creds.type === 'none' && credentials?.[DOCKER_CONFIG_KEY] !== undefined
        ? `the Secret in secretRef has no entry for ${repo.host} in its ${DOCKER_CONFIG_KEY}`
        : undefined;
    return this.fetchWith(spec, creds, caPem, signal, hint, options);
  }

  /** The same fetch with credentials and CA already in hand (the CLI's flags). */
  async fetchWith(
    spec: OciSourceSpec,
    creds: RegistryCredentials,
    caPem: string | undefined,
    signal?: AbortSignal,
    noCredentialsHint?: string,
    options?: FetchOptions,
  ): Promise<SourceOutput> {
    const repo = parseOciUrl(spec.url, `${FIELD}.url`);
    const ref = parseOciRef(spec.ref, `${FIELD}.ref`);
    const path = normalizePath(spec.path);
    // Without the caller's signal: the tag's manifest is read for every Release on it (below).
    const unbound = new RegistryClient(repo, {
      credentials: creds,
      ...(caPem === undefined ? {} : { caPem }),
      insecure: spec.insecure === true,
      timeoutMs: this.#o.timeoutMs ?? 60_000,
      idleMs: this.#o.idleMs ?? 20_000,
      maxManifestBytes: MAX_MANIFEST_BYTES,
      maxTags: this.#o.maxTags ?? 10_000,
      ...(noCredentialsHint === undefined ? {} : { noCredentialsHint }),
    });
    // A credential's own cache line: what one Release read with credentials is not served to another without.
    const identity = createHash('sha256')
      .update(JSON.stringify([creds, caPem ?? '']))
      .digest('hex')
      .slice(0, 16);
    const keyOf = (digest: string) => `${repo.display}@${digest}#${identity}`;
    try {
      if (ref.type === 'digest') {
        const cached = this.#cached(keyOf(ref.digest));
        if (cached !== undefined)
          return { revision: ref.digest, files: under(cached, path, repo, ref.digest) };
      }
      // Shared with every Release on the same tag or range: the read runs without this caller's signal.
      const { reference, manifest } = await this.#manifests.read(
        `${keyOf(describeRef(ref))}`,
        options,
        async () => {
          const reference = await this.#resolve(unbound, repo, ref);
          return { reference, manifest: await unbound.manifest(reference) };
        },
        signal,
      );
      const client = unbound.withSignal(signal);
      const tagged = ref.type === 'digest' ? undefined : reference;
      const key = keyOf(manifest.digest);
      let files = this.#cached(key);
      if (files === undefined) {
        files = await this.#read(client, repo, ref, manifest);
        this.#remember(key, files);
      }
      return { revision: revisionOf(manifest, tagged), files: under(files, path, repo, manifest.digest) };
    } catch (e) {
      if (e instanceof ArchiveError) {
        throw new SourceError(
          `${FIELD}: the artifact ${repo.display} (${describeRef(ref)}) is refused: ${e.message}`,
        );
      }
      if (e instanceof RegistryError) throw new SourceError(`${fieldOf(e, ref)}: ${e.message}`);
      throw e;
    }
  }

  /** The tag or digest to ask for: a semver range becomes the newest matching tag. */
  async #resolve(client: RegistryClient, repo: OciRepo, ref: OciRef): Promise<string> {
    switch (ref.type) {
      case 'tag':
        return ref.tag;
      case 'digest':
        return ref.digest;
      case 'semver': {
        const tags = await client.tags();
        const tag = newestMatching(tags, ref.range);
        if (tag === undefined) {
          throw new SourceError(
            `${FIELD}.ref.semver: no tag of ${repo.display} matches ${JSON.stringify(ref.range.raw)} (${tags.length} tags)`,
          );
        }
        return tag;
      }
    }
  }

  async #read(
    client: RegistryClient,
    repo: OciRepo,
    ref: OciRef,
    m: Manifest,
  ): Promise<readonly SourceFile[]> {
    const at = `${repo.display} (${describeRef(ref)}, ${m.digest})`;
    if (m.mediaType === MEDIA.ociIndex || m.mediaType === MEDIA.dockerList) {
      throw new SourceError(`${FIELD}: ${at} is an image index, not an artifact of manifests`);
    }
    if (m.mediaType !== MEDIA.ociManifest && m.mediaType !== MEDIA.dockerManifest) {
      throw new SourceError(
        `${FIELD}: ${at} has manifest media type ${JSON.stringify(m.mediaType)}, not an OCI image manifest`,
      );
    }
    const layer = pickLayer(m.layers);
    if (layer === undefined) {
      const types = m.layers.map((l) => l.mediaType).join(', ') || 'none';
      throw new SourceError(`${FIELD}: ${at} has no tar+gzip layer (layers: ${types})`);
    }
    if (layer.size > this.#limits.maxCompressedBytes) {
      throw new SourceError(
        `${FIELD}: the layer of ${at} is ${layer.size} bytes, over the limit of ${this.#limits.maxCompressedBytes}`,
      );
    }
    const gz = await client.blob(
      layer.digest,
      Math.min(layer.size, this.#limits.maxCompressedBytes),
      `layer ${layer.digest}`,
    );
    return extractTarGz(gz, this.#limits);
  }

  #cached(key: string): readonly SourceFile[] | undefined {
    const files = this.#cache.get(key);
    if (files !== undefined) {
      this.#cache.delete(key);
      this.#cache.set(key, files);
    }
    return files;
  }

  #remember(key: string, files: readonly SourceFile[]): void {
    const maxBytes = this.#o.cacheBytes ?? 128 * 1024 * 1024;
    const size = bytesOf(files);
    // An artifact larger than the whole cache is read again next time rather than evicting everything.
    if (size > maxBytes) return;
    this.#cache.set(key, files);
    this.#cacheBytes += size;
    const max = this.#o.cacheEntries ?? 32;
    while (this.#cache.size > max || this.#cacheBytes > maxBytes) {
      const oldest = this.#cache.entries().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest[0]);
      this.#cacheBytes -= bytesOf(oldest[1]);
    }
  }
}

const bytesOf = (files: readonly SourceFile[]): number => files.reduce((n, f) => n + f.data.length, 0);

/** Flux's content layer first; else the first tar+gzip layer (OCI or Docker media type, a Helm chart). */
export function pickLayer(layers: readonly Descriptor[]): Descriptor | undefined {
  return (
    layers.find((l) => l.mediaType === MEDIA.fluxContent) ??
    layers.find((l) => /tar\+gzip$|\.tar\.gzip$/.test(l.mediaType))
  );
}

/** Which spec field a registry refusal is about: the credentials for 401/403, the ref for 404. */
function fieldOf(e: RegistryError, ref: OciRef): string {
  if (e.status === 401 || e.status === 403) return `${FIELD}.secretRef`;
  if (e.status === 404)
    return `${FIELD}.ref${ref.type === 'tag' ? '.tag' : ref.type === 'digest' ? '.digest' : '.semver'}`;
  return FIELD;
}

function normalizePath(raw: string | undefined): string {
  if (raw === undefined) return '';
  if (raw.startsWith('/') || raw.includes('\0'))
    throw new SourceError(`${FIELD}.path ${JSON.stringify(raw)} must be relative`);
  const parts: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new SourceError(`${FIELD}.path ${JSON.stringify(raw)} must not contain ".."`);
    parts.push(seg);
  }
  return parts.join('/');
}

function under(files: readonly SourceFile[], path: string, repo: OciRepo, digest: string): SourceFile[] {
  if (path === '') return [...files];
  const prefix = `${path}/`;
  const out = files
    .filter((f) => f.path.startsWith(prefix))
    .map((f) => ({ path: f.path.slice(prefix.length), data: f.data }));
  if (out.length === 0) {
    throw new SourceError(
      `${FIELD}.path ${JSON.stringify(path)} is not a directory in ${repo.display}@${digest}`,
    );
  }
  return out;
}

/** The config media type `helm push` gives a chart (Helm's OCI support). */
export const HELM_CHART_CONFIG = 'application/vnd.cncf.helm.config.v1+json';

/**
 * The revision of an artifact: its manifest digest; for a Helm chart found by tag or range, the tag
 * (the chart's version, as `helm push` names it) in front, `<version>@sha256:…`, as for a chart from
 * a chart repository. A chart pinned by digest keeps the digest alone (no tag names it). Pure.
 */
export function revisionOf(
  manifest: { readonly digest: string; readonly config?: { readonly mediaType: string } },
  tag: string | undefined,
): string {
  return manifest.config?.mediaType === HELM_CHART_CONFIG && tag !== undefined
    ? `${tag}@${manifest.digest}`
    : manifest.digest;
}
