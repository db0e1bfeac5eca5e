// convoy-observer's command line: the shared flags (shared-flags.ts), the informer resync, and where
// its wake-ups go (sync-flags.ts), and the drift loop's interval. Pure; the entry point reads the CA file and wires the rest.
import { type DriftInterval, parseDriftInterval } from '../observer/drift/options.ts';
import { durationMs, type Env, FlagError, type FlagReader, type FlagTable } from './flags.ts';
import { type HostInfo, parseProcessArgs, type SharedOptions, sharedFlags } from './shared-flags.ts';
import { parseSyncSettings, SYNC_FLAGS, type SyncFlag, type SyncSettings } from './sync-flags.ts';

export const OBSERVER = 'convoy-observer';

export const OBSERVER_FLAGS: FlagTable = {
  ...sharedFlags(8081),
  resync: { arg: 'DURATION', default: '10m', help: 'informer resync, a Go duration (0: never)' },
  'sync-mode': {
    arg: 'MODE',
    default: 'api',
    help: 'api: wake-ups are POST /sync to the HTTP API; annotation: degraded, writes sync-requested-at itself',
  },
  'sync-api-url': {
    arg: 'URL',
    help: "https://host:port of the controller-manager's API; unset: through kube-apiserver's aggregation layer",
  },
  'sync-api-ca-file': {
    arg: 'PATH',
    help: "CA bundle of the API's serving certificate, with --sync-api-url (default: the system's CAs)",
  },
  'drift-interval': {
    arg: 'DURATION',
    help: "drift check interval (unset: each Release's syncPolicy.interval, else 5m; 0: drift loop off)",
  },
};

export interface ObserverOptions extends SharedOptions {
  readonly resyncMs: number;
  readonly sync: SyncSettings;
  readonly driftInterval: DriftInterval;
}

export type ObserverCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly options: ObserverOptions };

export function parseObserverFlags(argv: readonly string[], env: Env, host: HostInfo): ObserverCommand {
  const parsed = parseProcessArgs(OBSERVER, OBSERVER_FLAGS, argv, env, host);
  if (parsed.kind === 'help') return parsed;
  const { shared, read } = parsed;
  const given: Partial<Record<SyncFlag, string>> = {};
  for (const f of Object.keys(SYNC_FLAGS) as SyncFlag[]) {
    const v = read.given.get(f);
    if (v !== undefined) given[f] = v;
  }
  return {
    kind: 'run',
    options: {
      ...shared,
      resyncMs: read.parse('resync', durationMs),
      sync: parseSyncSettings(given, env),
      driftInterval: driftInterval(read),
    },
  };
}

function driftInterval(read: FlagReader): DriftInterval {
  const parsed = parseDriftInterval(read.get('drift-interval'));
  if ('error' in parsed) throw new FlagError(`${read.describe('drift-interval')}: ${parsed.error}`);
  return parsed;
}
