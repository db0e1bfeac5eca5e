// Table tests of both processes' command lines: the settings they share are spelled the same and read the
// same variables (docs/design.md#sharding: one shard count for both), then each one's own flags and errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CONTROLLER_MANAGER_FLAGS,
  type ControllerManagerOptions,
  parseControllerManagerFlags,
} from './controller-manager-flags.ts';
import { envOf } from './flags.ts';
import { OBSERVER_FLAGS, type ObserverOptions, parseObserverFlags } from './observer-flags.ts';
import { sharedFlags } from './shared-flags.ts';

const HOST = { hostname: 'node-1', pid: 42, tmpdir: '/tmp' };
type Env = Record<string, string>;

/** With the HTTP API off: its flags are api-flags.test.ts's. */
function manager(argv: string[], env: Env = {}): ControllerManagerOptions {
  const c = parseControllerManagerFlags(argv, { CONVOY_API_BIND_ADDRESS: 'off', ...env }, HOST);
  assert.equal(c.kind, 'run');
  return (c as Extract<typeof c, { kind: 'run' }>).options;
}
function observer(argv: string[], env: Env = {}): ObserverOptions {
  const c = parseObserverFlags(argv, env, HOST);
  assert.equal(c.kind, 'run');
  return (c as Extract<typeof c, { kind: 'run' }>).options;
}
const both = (argv: string[], env: Env = {}) => [manager(argv, env), observer(argv, env)] as const;

test('every shared flag exists on both processes, with the same variable', () => {
  for (const flag of Object.keys(sharedFlags(0))) {
    const m = CONTROLLER_MANAGER_FLAGS[flag];
    const o = OBSERVER_FLAGS[flag];
    assert.ok(m && o, flag);
    assert.equal(envOf(flag, m), envOf(flag, o), flag);
  }
});

test('shared settings: defaults, variables, flags winning, read alike by both', () => {
  const rows: ReadonlyArray<{ argv: string[]; env?: Env; want: Record<string, unknown> }> = [
    {
      argv: [],
      want: {
        kubeconfig: undefined,
        shardCount: 1,
        leaseNamespace: 'convoy-system',
        leaseDurationSeconds: 15,
        identity: 'node-1-42',
        concurrency: 10,
      },
    },
    {
      argv: ['--shard-count', '3', '--lease-duration=1m', '--identity', 'pod-a', '--kubeconfig', '/k'],
      want: { shardCount: 3, leaseDurationSeconds: 60, identity: 'pod-a', kubeconfig: '/k' },
    },
    {
      argv: [],
      env: {
        CONVOY_SHARD_COUNT: '4',
        CONVOY_LEASE_DURATION: '5s',
        CONVOY_LEASE_NAMESPACE: 'ops',
        CONVOY_IDENTITY: 'pod-b',
        CONVOY_CONCURRENCY: '8',
        CONVOY_METRICS_BIND_ADDRESS: ':9090',
        KUBECONFIG: '/ignored-here',
      },
      want: {
        shardCount: 4,
        leaseDurationSeconds: 5,
        leaseNamespace: 'ops',
        identity: 'pod-b',
        concurrency: 8,
        metricsBindAddress: { host: '0.0.0.0', port: 9090 },
        // $KUBECONFIG is left to client-node, which also reads a list of files.
        kubeconfig: undefined,
      },
    },
    {
      argv: ['--shard-count=2', '--metrics-bind-address', '[::]:0'],
      env: { CONVOY_SHARD_COUNT: '4', CONVOY_IDENTITY: '' },
      want: { shardCount: 2, identity: 'node-1-42', metricsBindAddress: { host: '::', port: 0 } },
    },
  ];
  for (const { argv, env, want } of rows) {
    for (const opts of both(argv, env)) {
      const got = Object.fromEntries(Object.keys(want).map((k) => [k, opts[k as keyof typeof opts]]));
      assert.deepEqual(got, want, `${argv.join(' ')} ${JSON.stringify(env ?? {})}`);
    }
  }
});

test('metrics default to loopback, each process on its own port', () => {
  const [m, o] = both([]);
  assert.deepEqual(m.metricsBindAddress, { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(o.metricsBindAddress, { host: '127.0.0.1', port: 8081 });
});

test('shared settings: bad values and old names are refused alike, naming the flag', () => {
  const rows: ReadonlyArray<[string[], Env, RegExp]> = [
    [['--shard-count', '0'], {}, /--shard-count \(CONVOY_SHARD_COUNT\) must be an integer >= 1, got "0"/],
    [[], { CONVOY_SHARD_COUNT: 'two' }, /CONVOY_SHARD_COUNT\) must be an integer/],
    [['--lease-duration', '15'], {}, /--lease-duration \(CONVOY_LEASE_DURATION\) must be a Go duration/],
    [['--lease-duration', '1500ms'], {}, /must be whole seconds, at least 2s/],
    [['--lease-duration', '1s'], {}, /at least 2s/],
    [['--concurrency', 'x'], {}, /--concurrency/],
    [
      ['--metrics-bind-address', '8080'],
      {},
      /--metrics-bind-address \(CONVOY_METRICS_BIND_ADDRESS\) must be host:port/,
    ],
    [['--shards', '2'], {}, /unknown flag --shards: it is now --shard-count/],
    [['--lease-seconds', '5'], {}, /unknown flag --lease-seconds: it is now --lease-duration/],
    [['--metrics-port', '0'], {}, /unknown flag --metrics-port: it is now --metrics-bind-address/],
    [[], { CONVOY_SHARDS: '2' }, /CONVOY_SHARDS is no longer read: set CONVOY_SHARD_COUNT/],
    [[], { CONVOY_METRICS_PORT: '0' }, /set CONVOY_METRICS_BIND_ADDRESS/],
    [['--identity'], {}, /--identity needs a value/],
  ];
  for (const [argv, env, re] of rows) {
    assert.throws(() => parseControllerManagerFlags(argv, env, HOST), re, `manager ${argv.join(' ')}`);
    assert.throws(() => parseObserverFlags(argv, env, HOST), re, `observer ${argv.join(' ')}`);
  }
});

test('controller-manager: its own flags and the --api-* ones', () => {
  const d = manager([]);
  assert.equal(d.shardIndex, undefined);
  assert.equal(d.gitCacheDir, '/tmp/convoy-git-cache');
  assert.equal(d.allowFileUrls, false);
  assert.equal(d.crashAfterWave, undefined);
  assert.deepEqual([d.gitTimeoutMs, d.gitStallMs, d.reconcileTimeoutMs], [120_000, 30_000, 600_000]);
  const t = manager(['--git-timeout=5s', '--git-stall-timeout', '2s', '--reconcile-timeout=1m'], {});
  assert.deepEqual([t.gitTimeoutMs, t.gitStallMs, t.reconcileTimeoutMs], [5000, 2000, 60_000]);
  assert.throws(
    () => manager(['--git-timeout=0s'], {}),
    /--git-timeout \(CONVOY_GIT_TIMEOUT\) must be above 0/,
  );
  const e = manager(['--shard-index=1', '--allow-file-urls', '--git-cache-dir', '/g'], {
    CONVOY_SHARD_COUNT: '3',
    CONVOY_TEST_CRASH_AFTER_WAVE_APPLY: '1',
  });
  assert.deepEqual([e.shardIndex, e.allowFileUrls, e.gitCacheDir, e.crashAfterWave], [1, true, '/g', 1]);
  assert.equal(manager([], { CONVOY_ALLOW_FILE_URLS: 'yes' }).allowFileUrls, true);

  const c = parseControllerManagerFlags(
    ['--api-bind-address', '127.0.0.1:0', '--api-dev-self-signed', '--identity', 'x'],
    {},
    HOST,
  );
  assert.equal(c.kind, 'run');
  if (c.kind === 'run') {
    assert.equal(c.options.identity, 'x');
    assert.deepEqual([c.api.kind, c.api.kind === 'serve' && c.api.port], ['serve', 0]);
  }
  for (const [argv, re] of [
    [['--shard-index', '2', '--shard-count', '2'], /--shard-index 2 must be below --shard-count 2/],
    [['--allow-file-urls=maybe'], /--allow-file-urls \(CONVOY_ALLOW_FILE_URLS\) must be true or false/],
    [['--resync', '1m'], /unknown flag --resync/],
    [['--api-bind-address', '127.0.0.1:0'], /needs a serving certificate/],
  ] as const) {
    assert.throws(() => parseControllerManagerFlags([...argv], {}, HOST), re, argv.join(' '));
  }
});

test('controller-manager: --tenancy (tenant by default) and --default-service-account', () => {
  const rows: ReadonlyArray<{ argv: string[]; env?: Env; want: unknown }> = [
    { argv: [], want: { mode: 'tenant' } },
    { argv: ['--tenancy=tenant'], want: { mode: 'tenant' } },
    {
      argv: ['--default-service-account', 'deployer'],
      want: { mode: 'tenant', defaultServiceAccount: 'deployer' },
    },
    {
      argv: [],
      env: { CONVOY_DEFAULT_SERVICE_ACCOUNT: 'd' },
      want: { mode: 'tenant', defaultServiceAccount: 'd' },
    },
    { argv: ['--tenancy', 'cluster'], want: { mode: 'cluster' } },
    { argv: [], env: { CONVOY_TENANCY: 'cluster' }, want: { mode: 'cluster' } },
  ];
  for (const { argv, env, want } of rows) assert.deepEqual(manager(argv, env).tenancy, want, argv.join(' '));
  for (const [argv, re] of [
    [['--tenancy', 'open'], /--tenancy "open": must be tenant or cluster/],
    [
      ['--tenancy=cluster', '--default-service-account=d'],
      /--default-service-account needs --tenancy=tenant/,
    ],
    [
      ['--default-service-account', 'Deployer!'],
      /--default-service-account "Deployer!": not a ServiceAccount name/,
    ],
  ] as const) {
    assert.throws(() => manager([...argv]), re, argv.join(' '));
  }
});

test('observer: resync and wake-ups', () => {
  const d = observer([]);
  assert.equal(d.resyncMs, 600_000);
  assert.deepEqual(d.sync, { kind: 'aggregated' });
  assert.equal(observer(['--resync', '0']).resyncMs, 0);
  assert.equal(observer([], { CONVOY_RESYNC: '30s' }).resyncMs, 30_000);
  assert.deepEqual(d.driftInterval, { kind: 'perRelease' });
  assert.deepEqual(observer(['--drift-interval', '0']).driftInterval, { kind: 'off' });
  assert.deepEqual(observer([], { CONVOY_DRIFT_INTERVAL: '2s' }).driftInterval, { kind: 'fixed', ms: 2_000 });
  assert.deepEqual(observer(['--sync-api-url', 'https://127.0.0.1:8443', '--sync-api-ca-file', '/ca']).sync, {
    kind: 'direct',
    url: 'https://127.0.0.1:8443',
    caFile: '/ca',
  });
  for (const [argv, re] of [
    [['--resync', '600000'], /--resync \(CONVOY_RESYNC\) must be a Go duration/],
    [['--sync-api-ca-file', '/ca'], /--sync-api-ca-file needs --sync-api-url/],
    [['--shard-index', '0'], /unknown flag --shard-index/],
    [['--git-cache-dir', '/g'], /unknown flag --git-cache-dir/],
    [['--drift-interval', 'soon'], /--drift-interval \(CONVOY_DRIFT_INTERVAL\): not a duration/],
    [['--drift-interval', '500ms'], /at least 1s/],
  ] as const) {
    assert.throws(() => parseObserverFlags([...argv], {}, HOST), re, argv.join(' '));
  }
});

test('--help gives the usage, listing every flag of the process', () => {
  const m = parseControllerManagerFlags(['--help'], {}, HOST);
  const o = parseObserverFlags(['-h'], {}, HOST);
  assert.ok(m.kind === 'help' && o.kind === 'help');
  for (const flag of Object.keys(CONTROLLER_MANAGER_FLAGS)) assert.match(m.text, new RegExp(`--${flag}\\b`));
  for (const flag of Object.keys(OBSERVER_FLAGS)) assert.match(o.text, new RegExp(`--${flag}\\b`));
  assert.match(m.text, /--api-bind-address/);
});
