// Who is calling, from what the request carries: a bearer token (checked later by TokenReview) or, when
// the request comes through the aggregation layer, the X-Remote-* headers of a front proxy whose client
// certificate the requestheader CA signed. Pure parts only; authn.ts does the I/O.

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** How a front proxy names the user (kube-apiserver's --requestheader-* flags). */
export interface RequestHeaderConfig {
  /** PEM bundle of the CA that signs front-proxy client certificates. */
  readonly clientCA: string;
  /** Common names a front-proxy certificate may have; empty: any certificate the CA signed. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export const DEFAULT_REQUEST_HEADERS = {
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
} as const;

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

function jsonList(data: Readonly<Record<string, string>>, key: string): string[] | undefined | Error {
  const raw = data[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  } catch {
    // reported below
  }
  return new Error(`${key} is not a JSON list of strings: ${raw}`);
}

/**
 * The requestheader settings kube-apiserver publishes in kube-system/extension-apiserver-authentication
 * (what real aggregated apiservers read). The lists are JSON arrays there. Without a
 * requestheader-client-ca-file the apiserver runs no front proxy: no requestheader mode.
 */
export function parseRequestHeaderConfigMap(
  data: Readonly<Record<string, string>> | undefined,
): ParseResult<RequestHeaderConfig | undefined> {
  const ca = data?.['requestheader-client-ca-file'];
  if (data === undefined || ca === undefined || ca.trim() === '') return { ok: true, value: undefined };
  const lists = {
    allowedNames: jsonList(data, 'requestheader-allowed-names'),
    usernameHeaders: jsonList(data, 'requestheader-username-headers'),
    uidHeaders: jsonList(data, 'requestheader-uid-headers'),
    groupHeaders: jsonList(data, 'requestheader-group-headers'),
    extraHeaderPrefixes: jsonList(data, 'requestheader-extra-headers-prefix'),
  };
  for (const v of Object.values(lists)) if (v instanceof Error) return { ok: false, message: v.message };
  const pick = (v: string[] | undefined | Error, fallback: readonly string[]): readonly string[] =>
    v instanceof Error || v === undefined ? fallback : v;
  return {
    ok: true,
    value: {
      clientCA: ca,
      allowedNames: pick(lists.allowedNames, []),
      // An empty header list would trust no header at all; kube-apiserver defaults these the same way.
      usernameHeaders: pick(lists.usernameHeaders, DEFAULT_REQUEST_HEADERS.usernameHeaders),
      uidHeaders: pick(lists.uidHeaders, []),
      groupHeaders: pick(lists.groupHeaders, DEFAULT_REQUEST_HEADERS.groupHeaders),
      extraHeaderPrefixes: pick(lists.extraHeaderPrefixes, DEFAULT_REQUEST_HEADERS.extraHeaderPrefixes),
    },
  };
}

/** A verified front-proxy certificate may speak for users only if its CN is allowed. */
export function proxyCertAllowed(commonName: string | undefined, allowedNames: readonly string[]): boolean {
  if (allowedNames.length === 0) return true;
  return commonName !== undefined && allowedNames.includes(commonName);
}

/** Headers as node's `req.headersDistinct` gives them: lower-case names, every value of repeated headers. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/** The user a trusted front proxy named; undefined when it named none. */
export function identityFromHeaders(
  headers: DistinctHeaders,
  cfg: Pick<RequestHeaderConfig, 'usernameHeaders' | 'uidHeaders' | 'groupHeaders' | 'extraHeaderPrefixes'>,
): UserInfo | undefined {
  const values = (name: string): readonly string[] =>
    (headers[name.toLowerCase()] ?? []).map((v) => v.trim()).filter((v) => v !== '');
  const first = (names: readonly string[]): string | undefined =>
    names.map((n) => values(n)[0]).find((v) => v !== undefined);
  const username = first(cfg.usernameHeaders);
  if (username === undefined) return undefined;
  const uid = first(cfg.uidHeaders);
  const groups = cfg.groupHeaders.flatMap(values);
  const extra: Record<string, string[]> = {};
  for (const prefix of cfg.extraHeaderPrefixes) {
    const p = prefix.toLowerCase();
    for (const [name, vs] of Object.entries(headers)) {
      if (!name.startsWith(p) || name.length === p.length || vs === undefined) continue;
      // Extra keys travel percent-encoded and case-folded (kube-apiserver's requestheader authenticator).
      let key: string;
      try {
        key = decodeURIComponent(name.slice(p.length)).toLowerCase();
      } catch {
        continue;
      }
      const list = extra[key] ?? [];
      list.push(...vs.filter((v) => v !== ''));
      extra[key] = list;
    }
  }
  return { username, ...(uid === undefined ? {} : { uid }), groups, extra };
}

export type BearerToken =
  | { readonly kind: 'none' }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'malformed'; readonly message: string };

export function bearerToken(authorization: string | undefined): BearerToken {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'none' };
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  if (m?.[1] === undefined) {
    return { kind: 'malformed', message: 'Authorization header must be "Bearer <token>"' };
  }
  return { kind: 'token', token: m[1] };
}
