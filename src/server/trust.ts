// The front-proxy trust a running server follows. kube-system/extension-apiserver-authentication is
// re-read (watch.ts) and a rotated requestheader CA, or changed allowed names or header names, replaces
// what is trusted without a restart; a connection whose proxy certificate only the old CA signed stops
// being believed even if it stays open. Pure: reading the ConfigMap and installing the result happen
// in watch.ts and server.ts.
import { X509Certificate } from 'node:crypto';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';
import type { ParseResult, RequestHeaderConfig } from './credentials.ts';

/** A requestheader configuration with its CA bundle parsed, as the server checks proxies against it. */
export interface Trust {
  readonly config: RequestHeaderConfig;
  readonly cas: readonly X509Certificate[];
}

/** What one re-read of the ConfigMap gave. */
export type TrustRead =
  | { readonly kind: 'read'; readonly parsed: ParseResult<RequestHeaderConfig | undefined> }
  | { readonly kind: 'failed'; readonly message: string };

export interface TrustState {
  readonly current: RequestHeaderConfig | undefined;
  /** The problem last warned about, so a lasting one is logged once rather than on every re-read. */
  readonly problem?: string;
}

export type TrustDecision =
  | { readonly kind: 'unchanged' }
  /** Trust `trust` from now on; undefined: the cluster no longer publishes a front proxy, trust none. */
  | { readonly kind: 'update'; readonly trust: Trust | undefined }
  /** Keep the current trust and warn. */
  | { readonly kind: 'keep'; readonly problem: string }
  | { readonly kind: 'stillKept' };

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws when there is none or one does not parse. */
export function parseCaBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new Error('no PEM certificate in it');
  return blocks.map((b) => new X509Certificate(b));
}

/** A Trust for `config`, or the reason its CA bundle is unusable. */
export function trustOf(config: RequestHeaderConfig): Trust | string {
  try {
    return { config, cas: parseCaBundle(config.clientCA) };
  } catch (err) {
    return `requestheader-client-ca-file: ${errorMessage(err)}`;
  }
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function sameConfig(a: RequestHeaderConfig | undefined, b: RequestHeaderConfig | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.clientCA === b.clientCA &&
    sameList(a.allowedNames, b.allowedNames) &&
    sameList(a.usernameHeaders, b.usernameHeaders) &&
    sameList(a.uidHeaders, b.uidHeaders) &&
    sameList(a.groupHeaders, b.groupHeaders) &&
    sameList(a.extraHeaderPrefixes, b.extraHeaderPrefixes)
  );
}

/**
 * A read that fails or holds garbage keeps what is trusted (an API hiccup must not lock the
 * aggregation layer out); a ConfigMap that no longer names a requestheader CA withdraws the trust,
 * since the cluster then runs no front proxy whose headers should be believed.
 */
export function decideTrust(state: TrustState, read: TrustRead): TrustDecision {
  const keep = (problem: string): TrustDecision =>
    problem === state.problem ? { kind: 'stillKept' } : { kind: 'keep', problem };
  switch (read.kind) {
    case 'failed':
      return keep(`reading it failed: ${read.message}`);
    case 'read': {
      if (!read.parsed.ok) return keep(read.parsed.message);
      const config = read.parsed.value;
      if (sameConfig(state.current, config)) return { kind: 'unchanged' };
      if (config === undefined) return { kind: 'update', trust: undefined };
      const trust = trustOf(config);
      return typeof trust === 'string' ? keep(trust) : { kind: 'update', trust };
    }
    default:
      return assertNever(read);
  }
}

export function afterTrustDecision(state: TrustState, decision: TrustDecision): TrustState {
  switch (decision.kind) {
    case 'unchanged':
      return { current: state.current };
    case 'update':
      return { current: decision.trust?.config };
    case 'keep':
      return { current: state.current, problem: decision.problem };
    case 'stillKept':
      return state;
    default:
      return assertNever(decision);
  }
}

/**
 * Whether a presented certificate chain (leaf first, as the handshake verified it) reaches one of the
 * CAs trusted now. Checked per request, as kube-apiserver's x509 authenticator does, because the
 * handshake of a keep-alive connection may predate a rotation.
 */
export function chainReachesCa(chain: readonly X509Certificate[], cas: readonly X509Certificate[]): boolean {
  return chain.some((cert) =>
    cas.some((ca) => ca.fingerprint256 === cert.fingerprint256 || issuedBy(cert, ca)),
  );
}

const issuedBy = (cert: X509Certificate, issuer: X509Certificate): boolean =>
  cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

const validAt = (cert: X509Certificate, now: Date): boolean =>
  Date.parse(cert.validFrom) <= now.getTime() && now.getTime() <= Date.parse(cert.validTo);

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** OpenSSL's complaints that mean only "this issuer is not trusted" (it may have been rotated in since). */
const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);
const MAX_DEPTH = 8;

/**
 * A path from the leaf through presented intermediates to a CA trusted now: every signature, every
 * validity period, intermediates marked CA, and a leaf usable for client authentication.
 */
export function verifiesTo(
  chain: readonly X509Certificate[],
  cas: readonly X509Certificate[],
  now: Date,
): boolean {
  const [leaf, ...presented] = chain;
  if (leaf === undefined || leaf.ca) return false;
  const usages = leaf.keyUsage;
  if (usages !== undefined && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE))
    return false;
  let cert = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (!validAt(cert, now)) return false;
    const anchor = cas.find((ca) => issuedBy(cert, ca));
    if (anchor !== undefined) return validAt(anchor, now);
    const next = presented.find((i) => i.ca && i !== cert && issuedBy(cert, i));
    if (next === undefined) return false;
    cert = next;
  }
  return false;
}

/** What the TLS handshake said about the client certificate of a connection. */
export interface Handshake {
  readonly authorized: boolean;
  /** OpenSSL's code, e.g. UNABLE_TO_GET_ISSUER_CERT_LOCALLY, when not authorized. */
  readonly error?: string;
}

/**
 * Whether a front-proxy certificate is signed by a CA trusted now. A connection the handshake verified
 * must still reach a current CA (the CA may have been rotated out since); one refused only for an
 * unknown issuer is verified here against the current CAs, since a proxy with a newly rotated-in CA
 * may have connected before this server read the new bundle, and keeps that connection open.
 */
export function proxyCertTrusted(
  chain: readonly X509Certificate[],
  handshake: Handshake,
  cas: readonly X509Certificate[],
  now: Date,
): boolean {
  if (handshake.authorized) return chainReachesCa(chain, cas);
  if (handshake.error === undefined || !UNKNOWN_ISSUER.has(handshake.error)) return false;
  return verifiesTo(chain, cas, now);
}
