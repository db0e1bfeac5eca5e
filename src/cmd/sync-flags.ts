// convoy-observer's wake-up settings: --sync-mode, --sync-api-url, --sync-api-ca-file (and their
// CONVOY_SYNC_* variables; a flag wins). Pure: the entry point reads the CA file.
import { FlagError } from './flags.ts';

export const SYNC_FLAGS = {
  'sync-mode': 'CONVOY_SYNC_MODE',
  'sync-api-url': 'CONVOY_SYNC_API_URL',
  'sync-api-ca-file': 'CONVOY_SYNC_API_CA_FILE',
} as const;
export type SyncFlag = keyof typeof SYNC_FLAGS;

export type SyncSettings =
  | { readonly kind: 'aggregated' }
  | { readonly kind: 'direct'; readonly url: string; readonly caFile: string | undefined }
  | { readonly kind: 'annotation' };

export function parseSyncSettings(
  flags: Readonly<Partial<Record<SyncFlag, string>>>,
  env: Readonly<Record<string, string | undefined>>,
): SyncSettings {
  const get = (f: SyncFlag): string | undefined =>
    flags[f] ?? (env[SYNC_FLAGS[f]] === '' ? undefined : env[SYNC_FLAGS[f]]);
  const mode = get('sync-mode') ?? 'api';
  const url = get('sync-api-url');
  const caFile = get('sync-api-ca-file');
  switch (mode) {
    case 'annotation':
      if (url !== undefined || caFile !== undefined) {
        throw new FlagError(
          '--sync-mode=annotation sends nothing to the API: drop --sync-api-url/--sync-api-ca-file',
        );
      }
      return { kind: 'annotation' };
    case 'api':
      if (url === undefined) {
        if (caFile !== undefined) throw new FlagError('--sync-api-ca-file needs --sync-api-url');
        return { kind: 'aggregated' };
      }
      return { kind: 'direct', url: apiBase(url), caFile };
    default:
      throw new FlagError(`--sync-mode must be api or annotation, got ${JSON.stringify(mode)}`);
  }
}

/** https://host[:port], nothing after it: the API's own paths are appended to it. */
function apiBase(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new FlagError(`--sync-api-url must be a URL like https://host:8443, got ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'https:')
    throw new FlagError(`--sync-api-url must use https, got ${JSON.stringify(raw)}`);
  if ((u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '' || u.username !== '') {
    throw new FlagError(
      `--sync-api-url is the API's origin only (https://host:port), got ${JSON.stringify(raw)}`,
    );
  }
  return u.origin;
}
