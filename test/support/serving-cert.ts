// A serving certificate for the controller-manager's HTTP API in e2e tests: self-signed (openssl, as
// src/server makes one), written to files so a restarted process keeps it — the APIService's caBundle
// and an observer's --sync-api-ca-file trust exactly this certificate.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { selfSignedCert } from '../../src/server/index.ts';

/** The Service name deploy/api and registerApiService use: the aggregator checks it against the cert. */
export const SERVING_HOSTS = ['127.0.0.1', 'localhost', 'convoy-api.convoy-system.svc'] as const;

export interface ServingCert {
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate itself: a self-signed cert is its own CA. */
  readonly caPem: string;
  dispose(): Promise<void>;
}

export async function makeServingCert(): Promise<ServingCert> {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-test-serving-'));
  const pair = await selfSignedCert(SERVING_HOSTS, 1);
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, pair.cert);
  await writeFile(keyFile, pair.key, { mode: 0o600 });
  return { certFile, keyFile, caPem: pair.cert, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The certificate a TLS server presents (trust on first use: for a server that made its own). */
export function presentedCert(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      const b64 = raw.toString('base64').replace(/(.{64})/g, '$1\n');
      resolve(`-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`);
    });
    socket.once('error', reject);
  });
}
