// The CLI's errors as one human line: a UserError says what to do; a Kubernetes API failure says which
// object and field; a file or network failure names the file or server in words instead of Node's
// ENOENT/ECONNREFUSED text. Never a stack trace. Pure.
import { readFile } from 'node:fs/promises';
import type { KubeApiError } from '../kube/errors.ts';

/** A failure the user can act on; its message is printed as is. */
export class UserError extends Error {
  override name = 'UserError';
}

const FS_CODES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'file name too long',
};

const NET_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is the API server running?)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server's certificate is self-signed and not trusted by the kubeconfig's CA",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate is not trusted by the kubeconfig's CA",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not trusted by the kubeconfig's CA",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name this host",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
};

interface Errno {
  readonly code?: unknown;
  readonly path?: unknown;
  readonly syscall?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
  readonly hostname?: unknown;
}

function isKubeApiError(err: unknown): err is KubeApiError {
  return err instanceof Error && err.name === 'KubeApiError';
}

/** The one line `convoy: …` prints for an error. */
export function describeError(err: unknown): string {
  if (err instanceof UserError) return err.message;
  if (isKubeApiError(err)) return describeKubeError(err);
  if (err instanceof Error) {
    const e = err as Error & Errno;
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code !== undefined && FS_CODES[code] !== undefined) {
      return typeof e.path === 'string' ? `${e.path}: ${FS_CODES[code]}` : FS_CODES[code];
    }
    if (code !== undefined && NET_CODES[code] !== undefined) {
      const where =
        typeof e.address === 'string'
          ? `${e.address}${typeof e.port === 'number' ? `:${e.port}` : ''}`
          : typeof e.hostname === 'string'
            ? e.hostname
            : 'the API server';
      return `cannot reach ${where}: ${NET_CODES[code]}`;
    }
    if (e.name === 'AbortError' || e.name === 'TimeoutError') return 'the request was aborted (timed out)';
    return firstLine(e.message);
  }
  return firstLine(String(err));
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.trim() === '' ? 'unknown error' : line;
}

/** An API failure in words, with what kubectl users would check next. */
export function describeKubeError(err: KubeApiError): string {
  const msg = firstLine(err.apiMessage);
  switch (err.code) {
    case 401:
      return `the API server did not accept the kubeconfig's credentials (401 Unauthorized): ${msg}`;
    case 403:
      return `forbidden: ${msg}`;
    case 404:
      if (/^no resource for kind/.test(msg) || /404 page not found/.test(msg)) {
        return `${msg}: is the CRD installed? (kubectl apply -f deploy/crds)`;
      }
      return msg;
    default:
      return msg;
  }
}

/** A file's text; a UserError naming the file when it cannot be read (Node leaves the path out of EISDIR). */
export async function readTextFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new UserError(
      `${path}: ${typeof code === 'string' ? (FS_CODES[code] ?? code) : describeError(err)}`,
    );
  }
}
