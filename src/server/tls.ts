// The serving certificate: from files (production: --api-tls-cert-file/--api-tls-key-file, e.g. from
// cert-manager) or self-signed at start for dev and tests. Node cannot create X.509 certificates, so
// the self-signed one comes from the openssl CLI; production must not depend on that.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../lib/errors.ts';
import { selfSigned } from '../lib/openssl.ts';

export type TlsSource =
  | { readonly kind: 'files'; readonly certFile: string; readonly keyFile: string }
  /** Hosts become SANs (IPs as IP:, names as DNS:); default 127.0.0.1 and localhost. */
  | { readonly kind: 'selfSigned'; readonly hosts?: readonly string[] };

export interface ServingCert {
  readonly cert: string;
  readonly key: string;
}

export const DEFAULT_DEV_HOSTS = ['127.0.0.1', 'localhost'] as const;

/** The subjectAltName extension value for openssl: `IP:127.0.0.1,DNS:localhost`. */
export function subjectAltNames(hosts: readonly string[]): string {
  if (hosts.length === 0) throw new Error('a self-signed certificate needs at least one host');
  for (const h of hosts) {
    if (isIP(h) === 0 && !/^[A-Za-z0-9*]([-A-Za-z0-9.*]*[A-Za-z0-9])?$/.test(h)) {
      throw new Error(`not a host name or IP address: ${JSON.stringify(h)}`);
    }
  }
  return hosts.map((h) => (isIP(h) === 0 ? `DNS:${h}` : `IP:${h}`)).join(',');
}

export async function loadServingCert(source: TlsSource): Promise<ServingCert> {
  switch (source.kind) {
    case 'files':
      return {
        cert: await readFile(source.certFile, 'utf8'),
        key: await readFile(source.keyFile, 'utf8'),
      };
    case 'selfSigned':
      return selfSignedCert(source.hosts ?? DEFAULT_DEV_HOSTS);
  }
}

/** An EC P-256 certificate valid for 30 days, made by `openssl req -x509`. */
export async function selfSignedCert(hosts: readonly string[], days = 30): Promise<ServingCert> {
  const san = subjectAltNames(hosts);
  const dir = await mkdtemp(join(tmpdir(), 'convoy-api-cert-'));
  try {
    const keyFile = join(dir, 'tls.key');
    const certFile = join(dir, 'tls.crt');
    try {
      await selfSigned({ keyFile, certFile }, '/CN=convoy-api', days, [`subjectAltName=${san}`]);
    } catch (err) {
      throw new Error(
        `creating a self-signed serving certificate with the openssl CLI failed (${errorMessage(err)}); ` +
          'install openssl or give a certificate and key file',
        { cause: err },
      );
    }
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
