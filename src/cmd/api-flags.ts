// convoy-controller-manager's HTTP API settings (--api-* flags and CONVOY_API_* variables; a flag wins).
// Pure. The controller-manager's other flags are parsed in controller-manager-flags.ts, which
// rejects flags it does not know, so the entry point splits the --api-* ones off first (splitApiArgs).
import { parseDuration } from '../api/duration.ts';
import { errorMessage } from '../lib/errors.ts';

export const API_FLAGS = {
  'api-bind-address': 'CONVOY_API_BIND_ADDRESS',
  'api-tls-cert-file': 'CONVOY_API_TLS_CERT_FILE',
  'api-tls-key-file': 'CONVOY_API_TLS_KEY_FILE',
  'api-dev-self-signed': 'CONVOY_API_DEV_SELF_SIGNED',
  'api-requestheader-from-cluster': 'CONVOY_API_REQUESTHEADER_FROM_CLUSTER',
  'api-requestheader-client-ca-file': 'CONVOY_API_REQUESTHEADER_CLIENT_CA_FILE',
  'api-requestheader-allowed-names': 'CONVOY_API_REQUESTHEADER_ALLOWED_NAMES',
  'api-auth-cache-ttl': 'CONVOY_API_AUTH_CACHE_TTL',
  'api-ui': 'CONVOY_API_UI',
} as const;
type ApiFlag = keyof typeof API_FLAGS;

/** Flags that may stand alone (`--api-dev-self-signed` = `--api-dev-self-signed=true`). */
const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'api-dev-self-signed',
  'api-requestheader-from-cluster',
  'api-ui',
]);

export const DEFAULT_BIND_ADDRESS = '0.0.0.0:8443';
export const DEFAULT_AUTH_CACHE_TTL_MS = 10_000;
/** SANs of --api-dev-self-signed: loopback, and the Service deploy/api registers the APIService with. */
export const DEV_SELF_SIGNED_HOSTS = [
  '127.0.0.1',
  'localhost',
  'convoy-api.convoy-system.svc',
  'convoy-api.convoy-system.svc.cluster.local',
] as const;

export type ApiTls =
  | { readonly kind: 'files'; readonly certFile: string; readonly keyFile: string }
  | { readonly kind: 'devSelfSigned'; readonly hosts: readonly string[] };

/** Whom to believe X-Remote-* headers from (the aggregation layer's front proxy). */
export type ApiRequestHeader =
  /** kube-system/extension-apiserver-authentication, re-read until it holds the settings. */
  | { readonly kind: 'fromCluster' }
  | { readonly kind: 'files'; readonly clientCaFile: string; readonly allowedNames: readonly string[] }
  /** Bearer tokens only. */
  | { readonly kind: 'none' };

export type ApiOptions =
  | { readonly kind: 'off' }
  | {
      readonly kind: 'serve';
      readonly host: string;
      readonly port: number;
      readonly tls: ApiTls;
      readonly requestHeader: ApiRequestHeader;
      readonly authCacheTtlMs: number;
      /** --api-ui: serve the web UI behind the API, impersonating each user (docs/ui.md#in-a-cluster). */
      readonly ui?: true;
    };

const isApiFlag = (name: string): name is ApiFlag => name in API_FLAGS;

/** Separates the --api-* flags (and their values) from the rest of the command line, order kept. */
export function splitApiArgs(argv: readonly string[]): { api: string[]; rest: string[] } {
  const api: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? (eq < 0 ? arg.slice(2) : arg.slice(2, eq)) : '';
    if (!isApiFlag(name)) {
      rest.push(arg);
      continue;
    }
    api.push(arg);
    if (eq < 0 && !BOOLEAN_FLAGS.has(name)) {
      const value = argv[i + 1];
      if (value !== undefined) {
        api.push(value);
        i++;
      }
    }
  }
  return { api, rest };
}

/** `host:port`, `:port` (every interface) or `[v6]:port`. */
export function parseBindAddress(v: string): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v);
  const port = Number(m?.[3]);
  if (m === null || !Number.isInteger(port) || port > 65535) {
    throw new Error(
      `--api-bind-address must be host:port (e.g. ${DEFAULT_BIND_ADDRESS}, 127.0.0.1:0), or "" / off to disable; got ${JSON.stringify(v)}`,
    );
  }
  const host = m[1] ?? (m[2] === '' || m[2] === undefined ? '0.0.0.0' : m[2]);
  return { host, port };
}

function parseBool(flag: ApiFlag, v: string): boolean {
  const s = v.toLowerCase();
  if (['1', 'true', 'yes'].includes(s)) return true;
  if (['0', 'false', 'no'].includes(s)) return false;
  throw new Error(`--${flag} (${API_FLAGS[flag]}) must be true or false, got ${JSON.stringify(v)}`);
}

export function parseApiOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ApiOptions {
  const given = new Map<ApiFlag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (!arg.startsWith('--') || !isApiFlag(name))
      throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (BOOLEAN_FLAGS.has(name)) value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new Error(`--${name} needs a value`);
      }
    }
    given.set(name, value);
  }
  // An empty variable counts as unset (as for every CONVOY_* variable); an empty flag value does not.
  const get = (f: ApiFlag): string | undefined =>
    given.get(f) ?? (env[API_FLAGS[f]] === '' ? undefined : env[API_FLAGS[f]]);

  const bind = get('api-bind-address') ?? DEFAULT_BIND_ADDRESS;
  if (bind === '' || bind.toLowerCase() === 'off') return { kind: 'off' };
  const { host, port } = parseBindAddress(bind);

  const certFile = get('api-tls-cert-file');
  const keyFile = get('api-tls-key-file');
  const selfSigned = parseBool('api-dev-self-signed', get('api-dev-self-signed') ?? 'false');
  let tls: ApiTls;
  if (certFile !== undefined || keyFile !== undefined) {
    if (certFile === undefined || keyFile === undefined) {
      throw new Error('--api-tls-cert-file and --api-tls-key-file go together: give both');
    }
    if (selfSigned) {
      throw new Error('--api-dev-self-signed cannot be combined with --api-tls-cert-file/--api-tls-key-file');
    }
    tls = { kind: 'files', certFile, keyFile };
  } else if (selfSigned) {
    tls = { kind: 'devSelfSigned', hosts: DEV_SELF_SIGNED_HOSTS };
  } else {
    throw new Error(
      `the HTTP API (listening on ${bind}) needs a serving certificate: give --api-tls-cert-file and --api-tls-key-file, ` +
        'or --api-dev-self-signed for development, or disable it with --api-bind-address=off',
    );
  }

  const caFile = get('api-requestheader-client-ca-file');
  const allowed = get('api-requestheader-allowed-names');
  const fromCluster = parseBool(
    'api-requestheader-from-cluster',
    get('api-requestheader-from-cluster') ?? 'true',
  );
  let requestHeader: ApiRequestHeader;
  if (caFile !== undefined) {
    const allowedNames = (allowed ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    requestHeader = { kind: 'files', clientCaFile: caFile, allowedNames };
  } else if (allowed !== undefined) {
    throw new Error('--api-requestheader-allowed-names needs --api-requestheader-client-ca-file');
  } else {
    requestHeader = fromCluster ? { kind: 'fromCluster' } : { kind: 'none' };
  }

  const ttl = get('api-auth-cache-ttl');
  let authCacheTtlMs = DEFAULT_AUTH_CACHE_TTL_MS;
  if (ttl !== undefined) {
    try {
      authCacheTtlMs = parseDuration(ttl);
    } catch (err) {
      throw new Error(`--api-auth-cache-ttl (${API_FLAGS['api-auth-cache-ttl']}): ${errorMessage(err)}`);
    }
    if (authCacheTtlMs < 0) throw new Error('--api-auth-cache-ttl must not be negative');
  }
  const ui = parseBool('api-ui', get('api-ui') ?? 'false');
  return { kind: 'serve', host, port, tls, requestHeader, authCacheTtlMs, ...(ui ? { ui: true } : {}) };
}
