// Whether two requests present the same TLS identity (CA, client certificate and key, verification), by
// content: KubeConfig.applyToHTTPSOptions hands out fresh Buffers on every request, so identity of the
// objects says nothing. The transport uses it to reuse the agent of the previous request of an origin
// without hashing the PEMs again (that hash was a tenth of the processes' CPU at thousands of Releases).

/** The fields of https.RequestOptions that pick an agent. */
export interface TlsIdentity {
  readonly ca?: unknown;
  readonly cert?: unknown;
  readonly key?: unknown;
  readonly rejectUnauthorized?: boolean | undefined;
  readonly servername?: string | undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  // Anything else (a KeyObject, a PEM-with-passphrase object) is never assumed equal: the caller hashes.
  return false;
}

export function sameTlsIdentity(a: TlsIdentity, b: TlsIdentity): boolean {
  return (
    a.rejectUnauthorized === b.rejectUnauthorized &&
    a.servername === b.servername &&
    sameValue(a.ca, b.ca) &&
    sameValue(a.cert, b.cert) &&
    sameValue(a.key, b.key)
  );
}
