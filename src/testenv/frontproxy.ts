// The front-proxy (requestheader) CA and the client cert kube-apiserver presents when it proxies
// to an aggregated apiserver, written as files for its flags. Made with the openssl CLI because
// Node cannot create X.509 certificates; EC P-256 keys take milliseconds where RSA takes ~0.1 s.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../lib/errors.ts';
import { issued, selfSigned } from '../lib/openssl.ts';
import { FRONT_PROXY_CLIENT_NAME, type FrontProxyFiles } from './flags.ts';

export interface FrontProxyCerts extends FrontProxyFiles {
  /** PEM of the CA: what an aggregated apiserver trusts for X-Remote-* headers. */
  readonly caPem: string;
}

// Long enough for a `convoy dev` session; a test's certs die with its temp dir.
const DAYS = 30;

/** Writes ca.crt, ca.key, client.crt and client.key (CN front-proxy-client, clientAuth) into `dir`. */
export async function writeFrontProxyCerts(dir: string): Promise<FrontProxyCerts> {
  await mkdir(dir, { recursive: true });
  const f = (name: string) => join(dir, name);
  const ca = { keyFile: f('ca.key'), certFile: f('ca.crt') };
  const client = { keyFile: f('client.key'), csrFile: f('client.csr'), certFile: f('client.crt') };
  try {
    await selfSigned(ca, '/CN=convoy-testenv-front-proxy-ca', DAYS);
    // Aggregated apiservers written in Go verify the proxy's cert for client auth, extended key usage included.
    await writeFile(f('client.ext'), 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
    await issued(ca, client, `/CN=${FRONT_PROXY_CLIENT_NAME}`, DAYS, f('client.ext'));
  } catch (err) {
    throw new Error(
      `making the front-proxy certs (aggregation: true needs the openssl CLI): ${errorMessage(err)}`,
      { cause: err },
    );
  }
  return {
    caFile: f('ca.crt'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
    caPem: await readFile(f('ca.crt'), 'utf8'),
  };
}
