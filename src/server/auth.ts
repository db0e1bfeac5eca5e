// Authentication and authorization delegated to the Kubernetes API: TokenReview for bearer tokens, the
// requestheader front-proxy identity for requests the aggregation layer forwards, SubjectAccessReview
// for every route that touches a Release. Answers are cached briefly, keyed by a hash of the token.
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { KubeClient } from '../kube/client.ts';
import { TtlCache } from './cache.ts';
import {
  bearerToken,
  type DistinctHeaders,
  identityFromHeaders,
  proxyCertAllowed,
  type UserInfo,
} from './credentials.ts';
import type { Access } from './routes.ts';
import { type Handshake, proxyCertTrusted, type Trust } from './trust.ts';

export type AuthnResult =
  | { readonly kind: 'authenticated'; readonly user: UserInfo; readonly via: 'requestheader' | 'token' }
  | { readonly kind: 'noCredentials' }
  | { readonly kind: 'rejected'; readonly message: string };

export interface AuthzResult {
  readonly allowed: boolean;
  readonly reason?: string;
}

interface TokenReviewStatus {
  status?: {
    authenticated?: boolean;
    error?: string;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  };
}

interface SubjectAccessReviewStatus {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export class DelegatingAuth {
  readonly #client: KubeClient;
  /** Read per request: the front-proxy trust may be replaced while the server runs (trust.ts). */
  readonly #trust: () => Trust | undefined;
  /** Per connection: whether its proxy certificate reaches the CAs of the trust it was last checked against. */
  readonly #chains = new WeakMap<
    TLSSocket,
    { readonly cas: readonly X509Certificate[]; readonly ok: boolean }
  >();
  readonly #tokens: TtlCache<AuthnResult>;
  readonly #decisions: TtlCache<AuthzResult>;

  constructor(
    client: KubeClient,
    trust: () => Trust | undefined,
    cacheTtlMs: number,
    now: () => number = Date.now,
  ) {
    this.#client = client;
    this.#trust = trust;
    this.#tokens = new TtlCache(cacheTtlMs, 4096, now);
    this.#decisions = new TtlCache(cacheTtlMs, 4096, now);
  }

  async authenticate(req: IncomingMessage): Promise<AuthnResult> {
    const proxied = this.#frontProxyUser(req);
    if (proxied !== undefined) return { kind: 'authenticated', user: proxied, via: 'requestheader' };
    const bearer = bearerToken(req.headers.authorization);
    switch (bearer.kind) {
      case 'none':
        return { kind: 'noCredentials' };
      case 'malformed':
        return { kind: 'rejected', message: bearer.message };
      case 'token':
        return this.#reviewToken(bearer.token);
    }
  }

  /** The X-Remote-* identity, trusted only on a connection whose client certificate the requestheader CA signed. */
  #frontProxyUser(req: IncomingMessage): UserInfo | undefined {
    const trust = this.#trust();
    if (trust === undefined) return undefined;
    const cfg = trust.config;
    const socket = req.socket as TLSSocket;
    // The handshake checked the chain against the CAs of its time; a keep-alive connection may outlive a rotation.
    if (!this.#signedByCurrentCa(socket, trust)) return undefined;
    const cn = socket.getPeerCertificate?.()?.subject?.CN;
    if (!proxyCertAllowed(typeof cn === 'string' ? cn : undefined, cfg.allowedNames)) return undefined;
    return identityFromHeaders(req.headersDistinct as DistinctHeaders, cfg);
  }

  /** Remembered per connection and CA bundle: the chain cannot change on an open connection. */
  #signedByCurrentCa(socket: TLSSocket, trust: Trust): boolean {
    const seen = this.#chains.get(socket);
    if (seen?.cas === trust.cas) return seen.ok;
    const ok = proxyCertTrusted(peerChain(socket), handshakeOf(socket), trust.cas, new Date());
    this.#chains.set(socket, { cas: trust.cas, ok });
    return ok;
  }

  async #reviewToken(token: string): Promise<AuthnResult> {
    const key = sha256(token);
    const cached = this.#tokens.get(key);
    if (cached !== undefined) return cached;
    const review = await this.#client.request<TokenReviewStatus>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const s = review.status;
    const result: AuthnResult =
      s?.authenticated === true && s.user?.username !== undefined
        ? {
            kind: 'authenticated',
            via: 'token',
            user: {
              username: s.user.username,
              ...(s.user.uid === undefined ? {} : { uid: s.user.uid }),
              groups: s.user.groups ?? [],
              extra: s.user.extra ?? {},
            },
          }
        : { kind: 'rejected', message: `invalid bearer token${s?.error ? `: ${s.error}` : ''}` };
    this.#tokens.set(key, result);
    return result;
  }

  /**
   * May `user` do `access`? A Release route is first asked for the whole namespace (no name): RBAC that
   * allows it there allows it for every name, so one review per user, verb and namespace answers every
   * Release in it while cached — the observer's wake-ups of 1,000 Releases in 20 namespaces cost 20
   * reviews, not 1,000 (docs/design.md#controller-wake-ups). Only where that is refused is the named
   * object asked about (RBAC by resourceNames).
   */
  async authorize(user: UserInfo, access: Access): Promise<AuthzResult> {
    if (access.resource !== 'releases') return this.#review(user, resourceAttributes(access, false));
    const wide = await this.#review(user, resourceAttributes(access, false));
    return wide.allowed ? wide : this.#review(user, resourceAttributes(access, true));
  }

  async #review(user: UserInfo, attributes: Readonly<Record<string, string>>): Promise<AuthzResult> {
    const key = sha256(
      JSON.stringify([user.username, user.uid, [...user.groups].sort(), user.extra, attributes]),
    );
    const cached = this.#decisions.get(key);
    if (cached !== undefined) return cached;
    const review = await this.#client.request<SubjectAccessReviewStatus>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          ...(user.uid === undefined ? {} : { uid: user.uid }),
          groups: user.groups,
          extra: user.extra,
          resourceAttributes: attributes,
        },
      },
    });
    const s = review.status;
    const reason = s?.reason ?? s?.evaluationError;
    const result: AuthzResult = {
      allowed: s?.allowed === true && s.denied !== true,
      ...(reason === undefined || reason === '' ? {} : { reason }),
    };
    this.#decisions.set(key, result);
    return result;
  }
}

/** A SubjectAccessReview's resourceAttributes for `access`; `named`: the Release's name too. */
function resourceAttributes(access: Access, named: boolean): Record<string, string> {
  const base = {
    namespace: access.namespace,
    verb: access.verb,
    group: access.group,
    resource: access.resource,
  };
  if (access.resource !== 'releases') return base;
  return { ...base, subresource: access.subresource, ...(named ? { name: access.name } : {}) };
}

/** Node gives OpenSSL's code as a string (typed as an Error), and null on an authorized connection. */
function handshakeOf(socket: TLSSocket): Handshake {
  const raw: unknown = socket.authorizationError;
  const error =
    typeof raw === 'string'
      ? raw
      : raw instanceof Error
        ? ((raw as { code?: string }).code ?? raw.message)
        : undefined;
  return { authorized: socket.authorized === true, ...(error === undefined ? {} : { error }) };
}

/** The peer's certificates, leaf first, as the handshake verified them. */
function peerChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let c: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  // A self-signed root names itself as its issuer.
  while (c?.raw !== undefined && !seen.has(c.fingerprint256)) {
    seen.add(c.fingerprint256);
    chain.push(new X509Certificate(c.raw));
    c = c.issuerCertificate;
  }
  return chain;
}
