// The OCI distribution API v2, the parts convoy needs: a manifest by tag or digest, the tag list
// (paged), a blob (digest checked, size bounded), and pushing blobs and a manifest. Authentication as
// registries do it: a 401 with `WWW-Authenticate: Basic` is answered with the credentials, one with
// `Bearer realm=…,service=…,scope=…` by a token from the realm (fetched with the credentials, if any),
// cached per scope for this client. Every exchange is bounded (src/lib/http-exchange.ts); errors are RegistryErrors
// whose message says what the registry refused, never a credential.
import { createHash } from 'node:crypto';
import { BodyTooLargeError, exchange, type HttpResponse, HttpTimeoutError } from '../../lib/http-exchange.ts';
import { SourceError, SourceTimeoutError } from '../errors.ts';
import type { RegistryCredentials } from './auth.ts';
import type { OciRepo } from './reference.ts';

export const MEDIA = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  /** Flux's artifact config and content (fluxcd/pkg/oci), what `flux push artifact` writes. */
  fluxConfig: 'application/vnd.cncf.flux.config.v1+json',
  fluxContent: 'application/vnd.cncf.flux.content.v1.tar+gzip',
} as const;

export type ClientOptions = {
  readonly credentials: RegistryCredentials;
  readonly caPem?: string;
  /** Speak plain HTTP (only when the Release says insecure: true). */
  readonly insecure: boolean;
  readonly timeoutMs: number;
  readonly idleMs: number;
  readonly maxManifestBytes: number;
  /** Stop listing tags after this many (a repository with more is an error, not a silent cut). */
  readonly maxTags: number;
  readonly signal?: AbortSignal;
  readonly userAgent?: string;
  /** What to tell a user whose request needed credentials it did not have (default: name a Secret). */
  readonly noCredentialsHint?: string;
};

export type Descriptor = {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
};

export type Manifest = {
  readonly digest: string;
  readonly mediaType: string;
  readonly raw: Buffer;
  readonly config?: Descriptor;
  readonly layers: readonly Descriptor[];
  readonly annotations: Readonly<Record<string, string>>;
};

/** The registry said no, or could not be reached; `status` is the HTTP status when there was one. */
export class RegistryError extends SourceError {
  override readonly name = 'RegistryError';
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

const MAX_ERROR_BODY = 64 * 1024;
const MAX_TOKEN_BODY = 64 * 1024;
const MAX_TAG_PAGES = 100;

export function sha256Digest(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export function digestOf(data: Uint8Array, algorithm: string): string {
  const algo = algorithm === 'sha512' ? 'sha512' : 'sha256';
  return `${algo}:${createHash(algo).update(data).digest('hex')}`;
}

export class RegistryClient {
  readonly repo: OciRepo;
  readonly #o: ClientOptions;
  readonly #base: string;
  get #noCredentials(): string {
    return this.#o.noCredentialsHint ?? 'name a docker-config Secret in secretRef';
  }
  /** scope → Authorization header value. */
  readonly #tokens = new Map<string, string>();
  #basic: string | undefined;

  constructor(repo: OciRepo, options: ClientOptions) {
    this.repo = repo;
    this.#o = options;
    this.#base = `${options.insecure ? 'http' : 'https'}://${repo.apiHost}`;
  }

  /** A client of the same repository whose requests stop at `signal`, with the tokens this one holds. */
  withSignal(signal: AbortSignal | undefined): RegistryClient {
    const { signal: _own, ...rest } = this.#o;
    const c = new RegistryClient(this.repo, signal === undefined ? rest : { ...rest, signal });
    for (const [scope, token] of this.#tokens) c.#tokens.set(scope, token);
    c.#basic = this.#basic;
    return c;
  }

  /** The manifest a tag or digest names, its digest computed here (and checked against a digest ref). */
  async manifest(reference: string): Promise<Manifest> {
    const res = await this.#call('GET', `/v2/${this.repo.repository}/manifests/${reference}`, 'pull', {
      accept: [MEDIA.ociManifest, MEDIA.dockerManifest, MEDIA.ociIndex, MEDIA.dockerList].join(', '),
      maxBodyBytes: this.#o.maxManifestBytes,
      what: reference.includes(':') ? `manifest ${reference}` : `tag ${JSON.stringify(reference)}`,
    });
    const raw = res.body;
    const algo = reference.includes(':') ? (reference.split(':')[0] ?? 'sha256') : 'sha256';
    const digest = digestOf(raw, algo);
    if (reference.includes(':') && digest !== reference) {
      throw new RegistryError(
        `digest mismatch: ${this.repo.display} sent a manifest for ${reference} whose content has digest ${digest}`,
      );
    }
    const header = res.headers['docker-content-digest'];
    if (
      typeof header === 'string' &&
      header.startsWith('sha256:') &&
      algo === 'sha256' &&
      header !== digest
    ) {
      throw new RegistryError(
        `digest mismatch: ${this.repo.display} says ${reference} is ${header}, but its content has digest ${digest}`,
      );
    }
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new RegistryError(`the manifest of ${reference} in ${this.repo.display} is not JSON`);
    }
    const contentType =
      String(res.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const mediaType = typeof json.mediaType === 'string' ? json.mediaType : contentType;
    return {
      digest,
      mediaType,
      raw,
      ...(isDescriptor(json.config) ? { config: json.config } : {}),
      layers: Array.isArray(json.layers) ? json.layers.filter(isDescriptor) : [],
      annotations: stringMap(json.annotations),
    };
  }

  /** Every tag of the repository, following `Link` pages, at most maxTags. */
  async tags(): Promise<string[]> {
    const out: string[] = [];
    let path: string | undefined = `/v2/${this.repo.repository}/tags/list?n=1000`;
    for (let page = 1; path !== undefined; page++) {
      if (page > MAX_TAG_PAGES)
        throw new RegistryError(`${this.repo.display} lists tags in more than ${MAX_TAG_PAGES} pages`);
      const res: HttpResponse = await this.#call('GET', path, 'pull', {
        accept: 'application/json',
        maxBodyBytes: this.#o.maxManifestBytes,
        what: 'the tag list',
      });
      let json: { tags?: unknown };
      try {
        json = JSON.parse(res.body.toString('utf8')) as { tags?: unknown };
      } catch {
        throw new RegistryError(`the tag list of ${this.repo.display} is not JSON`);
      }
      if (Array.isArray(json.tags)) for (const t of json.tags) if (typeof t === 'string') out.push(t);
      if (out.length > this.#o.maxTags) {
        throw new RegistryError(
          `${this.repo.display} has more than ${this.#o.maxTags} tags; name a tag or digest`,
        );
      }
      path = nextPage(res.headers.link);
    }
    return out;
  }

  /** A blob's bytes, at most maxBytes, checked against its digest. */
  async blob(digest: string, maxBytes: number, what: string): Promise<Buffer> {
    const res = await this.#call('GET', `/v2/${this.repo.repository}/blobs/${digest}`, 'pull', {
      accept: '*/*',
      maxBodyBytes: maxBytes,
      what,
    });
    const got = digestOf(res.body, digest.split(':')[0] ?? 'sha256');
    if (got !== digest) {
      throw new RegistryError(
        `digest mismatch: ${what} of ${this.repo.display} should be ${digest} but is ${got}`,
      );
    }
    return res.body;
  }

  async hasBlob(digest: string): Promise<boolean> {
    const res = await this.#call('HEAD', `/v2/${this.repo.repository}/blobs/${digest}`, 'pull,push', {
      accept: '*/*',
      maxBodyBytes: 0,
      what: `blob ${digest}`,
      allow: [404],
    });
    return res.status === 200;
  }

  /** Uploads a blob (monolithic: POST for a session, PUT with the digest) unless the registry has it. */
  async pushBlob(data: Uint8Array, mediaType: string): Promise<Descriptor> {
    const digest = sha256Digest(data);
    if (!(await this.hasBlob(digest))) {
      const start = await this.#call('POST', `/v2/${this.repo.repository}/blobs/uploads/`, 'pull,push', {
        accept: '*/*',
        maxBodyBytes: MAX_ERROR_BODY,
        what: 'a blob upload',
      });
      const location = start.headers.location;
      if (location === undefined)
        throw new RegistryError(`${this.repo.display} started an upload without a Location`);
      const url = new URL(location, start.url);
      url.searchParams.set('digest', digest);
      await this.#call('PUT', url.pathname + url.search, 'pull,push', {
        accept: '*/*',
        maxBodyBytes: MAX_ERROR_BODY,
        what: `blob ${digest}`,
        body: data,
        contentType: 'application/octet-stream',
        ...(url.host === new URL(this.#base).host ? {} : { absolute: url }),
      });
    }
    return { mediaType, digest, size: data.length };
  }

  /** PUTs a manifest under a tag; the digest of its bytes. */
  async pushManifest(tag: string, body: Uint8Array, mediaType: string): Promise<string> {
    const digest = sha256Digest(body);
    await this.#call('PUT', `/v2/${this.repo.repository}/manifests/${tag}`, 'pull,push', {
      accept: '*/*',
      maxBodyBytes: MAX_ERROR_BODY,
      what: `tag ${JSON.stringify(tag)}`,
      body,
      contentType: mediaType,
    });
    return digest;
  }

  async #call(
    method: 'GET' | 'HEAD' | 'POST' | 'PUT',
    path: string,
    actions: string,
    o: {
      readonly accept: string;
      readonly maxBodyBytes: number;
      readonly what: string;
      readonly body?: Uint8Array;
      readonly contentType?: string;
      readonly allow?: readonly number[];
      readonly absolute?: URL;
    },
  ): Promise<HttpResponse> {
    const scope = `repository:${this.repo.repository}:${actions}`;
    const url = o.absolute ?? new URL(path, this.#base);
    const send = async (authorization: string | undefined, maxBodyBytes: number) => {
      const headers: Record<string, string> = {
        accept: o.accept,
        'user-agent': this.#o.userAgent ?? 'convoy',
        ...(o.contentType === undefined ? {} : { 'content-type': o.contentType }),
        ...(authorization === undefined ? {} : { authorization }),
      };
      return this.#exchange(method, url, headers, o.body, maxBodyBytes, o.what);
    };
    // Read error bodies too: they are bounded by the larger of the two limits.
    const limit = Math.max(o.maxBodyBytes, MAX_ERROR_BODY);
    // Basic credentials, once a registry asked for them, are sent for every scope without asking again.
    let res = await send(this.#tokens.get(scope) ?? this.#basic, limit);
    if (res.status === 401) {
      const authorization = await this.#authorize(res, scope);
      if (authorization !== undefined) {
        this.#tokens.set(scope, authorization);
        if (authorization.startsWith('Basic ')) this.#basic = authorization;
        res = await send(authorization, limit);
      }
    }
    if ((res.status >= 200 && res.status < 300) || o.allow?.includes(res.status)) {
      if (res.body.length > o.maxBodyBytes && method !== 'HEAD') {
        throw new RegistryError(
          `${o.what} of ${this.repo.display} is over the limit of ${o.maxBodyBytes} bytes`,
        );
      }
      return res;
    }
    throw this.#refusal(res, o.what);
  }

  async #exchange(
    method: 'GET' | 'HEAD' | 'POST' | 'PUT',
    url: URL,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
    maxBodyBytes: number,
    what: string,
  ): Promise<HttpResponse> {
    try {
      return await exchange(
        { method, url, headers, ...(body === undefined ? {} : { body }), maxBodyBytes },
        {
          timeoutMs: this.#o.timeoutMs,
          idleMs: this.#o.idleMs,
          insecure: this.#o.insecure,
          ...(this.#o.caPem === undefined ? {} : { caPem: this.#o.caPem }),
          ...(this.#o.signal === undefined ? {} : { signal: this.#o.signal }),
        },
      );
    } catch (e) {
      if (e instanceof HttpTimeoutError) {
        throw new SourceTimeoutError(
          `reading ${what} of ${this.repo.display} stopped: ${e.message}`,
          this.repo.display,
          Math.ceil(e.ms / 1000),
        );
      }
      if (e instanceof BodyTooLargeError) {
        throw new RegistryError(`${what} of ${this.repo.display} is too large: ${e.message}`);
      }
      throw new RegistryError(
        `cannot reach ${this.repo.host} for ${what} of ${this.repo.display}: ${tlsHint(e)}`,
      );
    }
  }

  /** The Authorization header a 401 asks for, or undefined when we have nothing to offer. */
  async #authorize(res: HttpResponse, scope: string): Promise<string | undefined> {
    const challenge = parseChallenge(String(res.headers['www-authenticate'] ?? ''));
    const creds = this.#o.credentials;
    if (challenge?.scheme === 'basic') {
      if (creds.type !== 'basic') return undefined;
      return `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    }
    if (challenge?.scheme !== 'bearer') return undefined;
    const realm = challenge.params.realm;
    if (realm === undefined) throw new RegistryError(`${this.repo.host} asked for a token without a realm`);
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw new RegistryError(`${this.repo.host} names a token realm that is not a URL`);
    }
    if (challenge.params.service !== undefined) url.searchParams.set('service', challenge.params.service);
    url.searchParams.set('scope', challenge.params.scope ?? scope);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#o.userAgent ?? 'convoy',
    };
    let method: 'GET' | 'POST' = 'GET';
    let body: Uint8Array | undefined;
    if (creds.type === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    } else if (creds.type === 'refresh') {
      // docker's identity token: the OAuth2 refresh-token grant at the same realm.
      method = 'POST';
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: creds.token,
        service: challenge.params.service ?? '',
        scope: challenge.params.scope ?? scope,
        client_id: 'convoy',
      });
      body = Buffer.from(form.toString());
      url.search = '';
    }
    const tokenRes = await this.#exchange(method, url, headers, body, MAX_TOKEN_BODY, 'a token');
    if (tokenRes.status === 401 || tokenRes.status === 403) {
      throw new RegistryError(
        creds.type === 'none'
          ? `${this.repo.host} needs credentials for ${this.repo.display} (${tokenRes.status} from its token service): ${this.#noCredentials}`
          : `${this.repo.host} refused the credentials for ${this.repo.display} (${tokenRes.status} from its token service)`,
        tokenRes.status,
      );
    }
    if (tokenRes.status < 200 || tokenRes.status >= 300) {
      throw new RegistryError(
        `the token service of ${this.repo.host} answered ${tokenRes.status}`,
        tokenRes.status,
      );
    }
    let token: unknown;
    try {
      const json = JSON.parse(tokenRes.body.toString('utf8')) as { token?: unknown; access_token?: unknown };
      token = json.token ?? json.access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string' || token === '') {
      throw new RegistryError(`the token service of ${this.repo.host} answered without a token`);
    }
    return `Bearer ${token}`;
  }

  #refusal(res: HttpResponse, what: string): RegistryError {
    const detail = errorDetail(res.body);
    const suffix = detail === '' ? '' : `: ${detail}`;
    const r = this.repo.display;
    const creds = this.#o.credentials.type !== 'none';
    switch (res.status) {
      case 401:
        return new RegistryError(
          creds
            ? `${this.repo.host} refused the credentials for ${r} (401 Unauthorized${suffix})`
            : `${r} needs credentials (401 Unauthorized${suffix}): ${this.#noCredentials}`,
          401,
        );
      case 403:
        return new RegistryError(`${this.repo.host} denied access to ${r} (403 Forbidden${suffix})`, 403);
      case 404:
        return new RegistryError(`${what} not found in ${r} (404${suffix})`, 404);
      default:
        return new RegistryError(
          `${this.repo.host} answered ${res.status} for ${what} of ${r}${suffix}`,
          res.status,
        );
    }
  }
}

/** `Bearer realm="https://auth",service="reg",scope="repository:a:pull"` → scheme and params. */
export function parseChallenge(
  header: string,
): { scheme: string; params: Record<string, string> } | undefined {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (m === null) return undefined;
  const params: Record<string, string> = {};
  for (const p of (m[2] ?? '').matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[(p[1] ?? '').toLowerCase()] = p[2] ?? p[3] ?? '';
  }
  return { scheme: (m[1] ?? '').toLowerCase(), params };
}

/** `</v2/x/tags/list?last=b&n=1000>; rel="next"` → the path, or undefined on the last page. */
export function nextPage(link: string | string[] | undefined): string | undefined {
  const text = Array.isArray(link) ? link.join(',') : link;
  const m = text === undefined ? null : /<([^>]+)>\s*;\s*rel="?next"?/.exec(text);
  if (m === null) return undefined;
  const u = new URL(m[1] ?? '', 'http://x');
  return u.pathname + u.search;
}

/** The registry's own words, from its `{"errors":[{"code","message"}]}`: short and single-line. */
function errorDetail(body: Buffer): string {
  try {
    const json = JSON.parse(body.subarray(0, MAX_ERROR_BODY).toString('utf8')) as {
      errors?: { code?: unknown; message?: unknown }[];
    };
    const first = json.errors?.[0];
    if (first === undefined) return '';
    const text = [first.code, first.message].filter((x) => typeof x === 'string').join(' ');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a registry's text must not break a condition message
    return text.replace(/[\u0000-\u001f]+/g, ' ').slice(0, 200);
  } catch {
    return '';
  }
}

function tlsHint(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const msg = err.message ?? String(e);
  if (/self[- ]signed|unable to verify|UNABLE_TO_GET_ISSUER|CERT_/i.test(`${err.code ?? ''} ${msg}`)) {
    return `${msg} (its certificate is not trusted: name a Secret with ca.crt in certSecretRef)`;
  }
  if (err.code === 'EPROTO' || /wrong version number|packet length too long/i.test(msg)) {
    return `${msg} (does it speak plain HTTP? then set insecure: true)`;
  }
  return msg;
}

function isDescriptor(x: unknown): x is Descriptor {
  const d = x as Descriptor | undefined;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.mediaType === 'string' &&
    typeof d.digest === 'string' &&
    typeof d.size === 'number'
  );
}

function stringMap(x: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof x !== 'object' || x === null) return out;
  for (const [k, v] of Object.entries(x)) if (typeof v === 'string') out[k] = v;
  return out;
}
