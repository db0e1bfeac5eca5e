// The openssl CLI steps convoy's dev and test certificates take: Node cannot create X.509 certificates,
// so a self-signed certificate (a CA, or a server's own trust anchor) and a certificate a CA signs come
// from `openssl req` and `openssl x509`, each bounded in time (the CLI is killed when it passes).
// Production takes its certificates from files and never runs these.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { errorMessage } from './errors.ts';

/** A new EC P-256 key without a passphrase. */
const EC_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'] as const;

const OPENSSL_TIMEOUT_MS = 60_000;

export class OpensslError extends Error {
  override readonly name = 'OpensslError';
}

/** Runs `openssl args`; a failure says which step failed and what openssl printed. */
export async function openssl(args: readonly string[]): Promise<void> {
  try {
    await promisify(execFile)('openssl', args, { timeout: OPENSSL_TIMEOUT_MS, killSignal: 'SIGKILL' });
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    const detail = typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : errorMessage(err);
    throw new OpensslError(`openssl ${args[0] ?? ''} failed: ${detail}`, { cause: err });
  }
}

export interface KeyPairFiles {
  readonly keyFile: string;
  readonly certFile: string;
}

/**
 * A new key and a certificate for it signed by itself, with `-addext` extensions
 * (e.g. `subjectAltName=IP:127.0.0.1`, `basicConstraints=critical,CA:TRUE`).
 */
export function selfSigned(
  out: KeyPairFiles,
  subject: string,
  days: number,
  extensions: readonly string[] = [],
): Promise<void> {
  return openssl([
    'req',
    '-x509',
    ...EC_P256_KEY,
    '-keyout',
    out.keyFile,
    '-out',
    out.certFile,
    '-days',
    String(days),
    '-subj',
    subject,
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
}

/** A new key and a certificate for it signed by `ca`, with the extensions of the file `extFile`. */
export async function issued(
  ca: KeyPairFiles,
  out: KeyPairFiles & { readonly csrFile: string },
  subject: string,
  days: number,
  extFile: string,
): Promise<void> {
  await openssl(['req', ...EC_P256_KEY, '-keyout', out.keyFile, '-out', out.csrFile, '-subj', subject]);
  await openssl([
    'x509',
    '-req',
    '-in',
    out.csrFile,
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    extFile,
    '-out',
    out.certFile,
  ]);
}
