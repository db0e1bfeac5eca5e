// Whether a serving certificate/key pair read from disk replaces the one being served. cert-manager and
// the kubelet rewrite these files under a running process; a pair caught half-written, a key that is not
// the certificate's, or PEM Node cannot use must never replace a working pair. Pure: watch.ts reads the
// files and acts on the decision.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';

export interface ServingPair {
  readonly cert: string;
  readonly key: string;
}

export interface ServingFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export type PairCheck =
  | { readonly kind: 'usable'; readonly fingerprint256: string; readonly validTo: string }
  | { readonly kind: 'badCert'; readonly message: string }
  | { readonly kind: 'badKey'; readonly message: string }
  | { readonly kind: 'mismatch' }
  /** Each file parses alone, but TLS will not take them together (e.g. a broken chain after the leaf). */
  | { readonly kind: 'unusable'; readonly message: string };

/** What one poll of the two files saw. */
export type Observed =
  | { readonly kind: 'read'; readonly pair: ServingPair }
  | { readonly kind: 'unreadable'; readonly file: string; readonly message: string };

export interface ReloadState {
  readonly served: ServingPair;
  /** The last observation refused, so the same broken files are warned about once rather than every poll. */
  readonly refused?: Observed;
}

export type ReloadDecision =
  | { readonly kind: 'unchanged' }
  | {
      readonly kind: 'reload';
      readonly pair: ServingPair;
      readonly fingerprint256: string;
      readonly validTo: string;
    }
  /** Keep serving the old pair; `file` is the one to look at. */
  | { readonly kind: 'refuse'; readonly file: string; readonly reason: string }
  /** Still the observation already refused: keep the old pair, say nothing new. */
  | { readonly kind: 'stillRefused' };

const messageOf = (err: unknown): string => errorMessage(err);

export function checkPair(pair: ServingPair): PairCheck {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
  } catch (err) {
    return { kind: 'badCert', message: messageOf(err) };
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pair.key);
  } catch (err) {
    return { kind: 'badKey', message: messageOf(err) };
  }
  if (!cert.checkPrivateKey(key)) return { kind: 'mismatch' };
  try {
    createSecureContext({ cert: pair.cert, key: pair.key });
  } catch (err) {
    return { kind: 'unusable', message: messageOf(err) };
  }
  return { kind: 'usable', fingerprint256: cert.fingerprint256, validTo: cert.validTo };
}

function sameObserved(a: Observed | undefined, b: Observed): boolean {
  if (a === undefined || a.kind !== b.kind) return false;
  switch (b.kind) {
    case 'read':
      return a.kind === 'read' && a.pair.cert === b.pair.cert && a.pair.key === b.pair.key;
    case 'unreadable':
      return a.kind === 'unreadable' && a.file === b.file && a.message === b.message;
    default:
      return assertNever(b);
  }
}

export function decideReload(state: ReloadState, observed: Observed, files: ServingFiles): ReloadDecision {
  if (
    observed.kind === 'read' &&
    observed.pair.cert === state.served.cert &&
    observed.pair.key === state.served.key
  ) {
    return { kind: 'unchanged' };
  }
  if (sameObserved(state.refused, observed)) return { kind: 'stillRefused' };
  if (observed.kind === 'unreadable') {
    return { kind: 'refuse', file: observed.file, reason: `cannot read it: ${observed.message}` };
  }
  const check = checkPair(observed.pair);
  switch (check.kind) {
    case 'usable':
      return {
        kind: 'reload',
        pair: observed.pair,
        fingerprint256: check.fingerprint256,
        validTo: check.validTo,
      };
    case 'badCert':
      return { kind: 'refuse', file: files.certFile, reason: `not a PEM certificate: ${check.message}` };
    case 'badKey':
      return { kind: 'refuse', file: files.keyFile, reason: `not a PEM private key: ${check.message}` };
    case 'mismatch':
      return {
        kind: 'refuse',
        file: files.keyFile,
        reason: `the key does not belong to the certificate in ${files.certFile} (half-way through a rotation?)`,
      };
    case 'unusable':
      return {
        kind: 'refuse',
        file: files.certFile,
        reason: `TLS refuses the pair with ${files.keyFile}: ${check.message}`,
      };
    default:
      return assertNever(check);
  }
}

/** The state after acting on a decision. */
export function afterDecision(state: ReloadState, observed: Observed, decision: ReloadDecision): ReloadState {
  switch (decision.kind) {
    case 'unchanged':
      return { served: state.served };
    case 'reload':
      return { served: decision.pair };
    case 'refuse':
      return { served: state.served, refused: observed };
    case 'stillRefused':
      return state;
    default:
      return assertNever(decision);
  }
}
