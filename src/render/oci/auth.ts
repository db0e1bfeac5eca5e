// Registry credentials from the Secret a Release names: a docker config (`.dockerconfigjson`, as
// `kubectl create secret docker-registry` writes it, or the legacy `.dockercfg`), or plain `username`
// and `password` keys; and the CA bundle (`ca.crt`) of the certSecretRef. The entry for a host is
// matched as docker does (host[:port], with or without https:// and a path). Pure; never prints a secret.
import { SourceError } from '../errors.ts';
import type { CredentialData } from '../types.ts';

export type RegistryCredentials =
  | { readonly type: 'none' }
  | { readonly type: 'basic'; readonly username: string; readonly password: string }
  /** An identity token (docker's `identitytoken`): traded for an access token at the token endpoint. */
  | { readonly type: 'refresh'; readonly token: string };

export const DOCKER_CONFIG_KEY = '.dockerconfigjson';
export const CA_KEY = 'ca.crt';

type AuthEntry = { auth?: string; username?: string; password?: string; identitytoken?: string };

/** The credentials for `host` in the Secret's decoded data; `none` when it has no entry for it. */
export function credentialsFor(
  data: CredentialData | undefined,
  host: string,
  field = 'spec.source.oci.secretRef',
): RegistryCredentials {
  if (data === undefined) return { type: 'none' };
  const json = data[DOCKER_CONFIG_KEY] ?? data['.dockercfg'] ?? data['config.json'];
  if (json === undefined) {
    if (data.username !== undefined && data.password !== undefined) {
      return { type: 'basic', username: data.username, password: data.password };
    }
    return { type: 'none' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new SourceError(`${field}: the Secret's ${DOCKER_CONFIG_KEY} is not JSON`);
  }
  const root = (parsed ?? {}) as Record<string, unknown>;
  // .dockerconfigjson wraps the hosts in "auths"; the legacy .dockercfg is the map itself.
  const auths = (typeof root.auths === 'object' && root.auths !== null ? root.auths : root) as Record<
    string,
    AuthEntry
  >;
  const entry = Object.entries(auths).find(([key]) => hostOfKey(key) === hostOfKey(host))?.[1];
  if (entry === undefined || typeof entry !== 'object') return { type: 'none' };
  if (typeof entry.identitytoken === 'string' && entry.identitytoken !== '') {
    return { type: 'refresh', token: entry.identitytoken };
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string') {
    return { type: 'basic', username: entry.username, password: entry.password };
  }
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new SourceError(`${field}: the auth of ${host} is not base64 of user:password`);
    return { type: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { type: 'none' };
}

/** "https://Index.Docker.io/v1/" → "index.docker.io"; "127.0.0.1:5000" stays. */
function hostOfKey(key: string): string {
  const noScheme = key.replace(/^[a-z]+:\/\//i, '');
  const host = noScheme.split('/')[0] ?? '';
  const lower = host.toLowerCase();
  return lower === 'index.docker.io' || lower === 'registry-1.docker.io' ? 'docker.io' : lower;
}

/** The CA bundle a certSecretRef holds, if any (PEM text). */
export function caBundleOf(
  data: CredentialData | undefined,
  field = 'spec.source.oci.certSecretRef',
): string | undefined {
  const pem = data?.[CA_KEY];
  if (pem === undefined) return undefined;
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new SourceError(`${field}: the Secret's ${CA_KEY} is not a PEM certificate bundle`);
  }
  return pem;
}
