// The front-proxy (requestheader) CA and the client cert kube-apiserver presents when it proxies
// to an aggregated apiserver, written as files for its flags. Made with the openssl CLI because
// Node cannot create X.509 certificates; EC P-256 keys take milliseconds where RSA takes ~0.1 s.
import { execFile as execFileCb } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FRONT_PROXY_CLIENT_NAME, type FrontProxyFiles } from './flags.ts';

const execFile = promisify(execFileCb);

export interface FrontProxyCerts extends FrontProxyFiles {
  /** PEM of the CA: what an aggregated apiserver trusts for X-Remote-* headers. */
  readonly caPem: string;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
// Long enough for a `convoy dev` session; a test's certs die with its temp dir.
const DAYS = '30';

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await execFile('openssl', args);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(
      `openssl ${args[0]} failed while making the front-proxy certs (aggregation: true needs the openssl CLI): ${(e.stderr ?? e.message).trim()}`,
      { cause: err },
    );
  }
}

/** Writes ca.crt, ca.key, client.crt and client.key (CN front-proxy-client, clientAuth) into `dir`. */
export async function writeFrontProxyCerts(dir: string): Promise<FrontProxyCerts> {
  await mkdir(dir, { recursive: true });
  const f = (name: string) => join(dir, name);
  await openssl([
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    DAYS,
    '-subj',
    '/CN=convoy-testenv-front-proxy-ca',
  ]);
  await openssl([
    'req',
    ...EC_KEY,
    '-keyout',
    f('client.key'),
    '-out',
    f('client.csr'),
    '-subj',
    `/CN=${FRONT_PROXY_CLIENT_NAME}`,
  ]);
  // Aggregated apiservers written in Go verify the proxy's cert for client auth, extended key usage included.
  await writeFile(f('client.ext'), 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    f('client.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    DAYS,
    '-extfile',
    f('client.ext'),
    '-out',
    f('client.crt'),
  ]);
  return {
    caFile: f('ca.crt'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
    caPem: await readFile(f('ca.crt'), 'utf8'),
  };
}
