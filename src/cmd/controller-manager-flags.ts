// convoy-controller-manager's command line: the shared flags (shared-flags.ts), its own, and the HTTP
// API's --api-* flags (api-flags.ts, split off first). Pure; the entry point only wires the result.
import { join } from 'node:path';
import type { Tenancy } from '../controller/release/act/target.ts';
import { errorMessage } from '../lib/errors.ts';
import { API_FLAGS, type ApiOptions, parseApiOptions, splitApiArgs } from './api-flags.ts';
import { type Env, FlagError, type FlagTable, positiveMs, toBool, toInt } from './flags.ts';
import { type HostInfo, parseProcessArgs, type SharedOptions, sharedFlags } from './shared-flags.ts';

export const CONTROLLER_MANAGER = 'convoy-controller-manager';

export const CONTROLLER_MANAGER_FLAGS: FlagTable = {
  ...sharedFlags(8080),
  'shard-index': {
    arg: 'I',
    help: 'work only shard I, holding no Lease (static sharding); unset: compete for the shard Leases',
  },
  'git-cache-dir': { arg: 'DIR', help: 'clones of git sources (default <tmpdir>/convoy-git-cache)' },
  'allow-file-urls': { default: 'false', help: 'accept file:// git URLs (tests, convoy dev)' },
  'git-timeout': {
    arg: 'DURATION',
    default: '2m',
    help: 'limit of one git fetch; git and its helpers are killed when it passes (SourceTimeout)',
  },
  'git-stall-timeout': {
    arg: 'DURATION',
    default: '30s',
    help: 'end a git fetch that moves less than 1 KiB/s for this long (SourceTimeout)',
  },
  'kustomize-binary': {
    arg: 'PATH',
    default: 'kustomize',
    help: 'the kustomize CLI for render.type Kustomize',
  },
  'helm-binary': { arg: 'PATH', default: 'helm', help: 'the helm CLI (v4) for render.type Helm' },
  tenancy: {
    arg: 'MODE',
    default: 'tenant',
    help:
      "tenant: every local write impersonates a ServiceAccount of the Release's namespace; " +
      'cluster: a Release without spec.serviceAccountName writes as convoy itself (docs/tenancy.md)',
  },
  'default-service-account': {
    arg: 'NAME',
    help: 'tenant mode: the ServiceAccount of its namespace a Release without spec.serviceAccountName impersonates; unset: such a Release is refused',
  },
};

const SERVICE_ACCOUNT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** --tenancy and --default-service-account; pure. */
export function parseTenancy(mode: string, defaultServiceAccount: string | undefined): Tenancy {
  if (defaultServiceAccount !== undefined && !SERVICE_ACCOUNT_NAME.test(defaultServiceAccount)) {
    throw new FlagError(
      `--default-service-account ${JSON.stringify(defaultServiceAccount)}: not a ServiceAccount name (lowercase letters, digits, '-', '.')`,
    );
  }
  switch (mode) {
    case 'tenant':
      return defaultServiceAccount === undefined ? { mode } : { mode, defaultServiceAccount };
    case 'cluster':
      if (defaultServiceAccount !== undefined) {
        throw new FlagError(
          '--default-service-account needs --tenancy=tenant: in cluster mode a Release without spec.serviceAccountName writes as convoy',
        );
      }
      return { mode };
    default:
      throw new FlagError(`--tenancy ${JSON.stringify(mode)}: must be tenant or cluster`);
  }
}

export interface ControllerManagerOptions extends SharedOptions {
  /** Static sharding: this shard only, no Lease. */
  readonly shardIndex: number | undefined;
  readonly gitCacheDir: string;
  readonly allowFileUrls: boolean;
  readonly gitTimeoutMs: number;
  readonly gitStallMs: number;
  readonly kustomizeBinary: string;
  readonly helmBinary: string;
  readonly tenancy: Tenancy;
  /** Test seam (CONVOY_TEST_CRASH_AFTER_WAVE_APPLY): exit(137) right after applying this wave. */
  readonly crashAfterWave: number | undefined;
}

export type ControllerManagerCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly options: ControllerManagerOptions; readonly api: ApiOptions };

export function parseControllerManagerFlags(
  argv: readonly string[],
  env: Env,
  host: HostInfo & { readonly tmpdir: string },
): ControllerManagerCommand {
  const split = splitApiArgs(argv);
  const parsed = parseProcessArgs(CONTROLLER_MANAGER, CONTROLLER_MANAGER_FLAGS, split.rest, env, host, {
    alsoKnown: Object.keys(API_FLAGS),
    footer:
      '\nThe HTTP API: --api-bind-address, --api-tls-cert-file, --api-tls-key-file, --api-dev-self-signed,\n' +
      '--api-requestheader-*, --api-auth-cache-ttl (docs/reference/processes.md) and --api-ui (docs/ui.md).\n',
  });
  if (parsed.kind === 'help') return parsed;
  const { shared, read } = parsed;
  const index = read.get('shard-index');
  const shardIndex =
    index === undefined ? undefined : read.parse('shard-index', (what, v) => toInt(what, v, 0));
  if (shardIndex !== undefined && shardIndex >= shared.shardCount) {
    throw new FlagError(`--shard-index ${shardIndex} must be below --shard-count ${shared.shardCount}`);
  }
  const crash = env.CONVOY_TEST_CRASH_AFTER_WAVE_APPLY;
  const options: ControllerManagerOptions = {
    ...shared,
    shardIndex,
    gitCacheDir: read.get('git-cache-dir') ?? join(host.tmpdir, 'convoy-git-cache'),
    allowFileUrls: read.parse('allow-file-urls', toBool),
    gitTimeoutMs: read.parse('git-timeout', positiveMs),
    gitStallMs: read.parse('git-stall-timeout', positiveMs),
    kustomizeBinary: read.need('kustomize-binary'),
    helmBinary: read.need('helm-binary'),
    tenancy: parseTenancy(read.need('tenancy'), read.get('default-service-account')),
    crashAfterWave:
      crash === undefined || crash === '' ? undefined : toInt('CONVOY_TEST_CRASH_AFTER_WAVE_APPLY', crash, 0),
  };
  let api: ApiOptions;
  try {
    api = parseApiOptions(split.api, env);
  } catch (err) {
    throw new FlagError(errorMessage(err));
  }
  return { kind: 'run', options, api };
}
