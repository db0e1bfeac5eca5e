// Table tests of the shared command-line grammar: values, variables, unknown flags with suggestions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  envOf,
  FlagError,
  type FlagTable,
  flagValue,
  parseArgv,
  parseHostPort,
  rejectRenamedEnv,
  toBindAddress,
  unknownFlag,
  usage,
} from './flags.ts';

const TABLE: FlagTable = {
  'shard-count': { arg: 'N', default: '1', help: 'shards' },
  kubeconfig: { arg: 'PATH', env: false, help: 'kubeconfig' },
  'allow-file-urls': { default: 'false', help: 'file urls' },
  'metrics-bind-address': { arg: 'HOST:PORT', default: '127.0.0.1:8080', help: 'probes' },
};

test('envOf: CONVOY_<FLAG>, or the spec says otherwise', () => {
  assert.equal(envOf('shard-count', TABLE['shard-count']), 'CONVOY_SHARD_COUNT');
  assert.equal(envOf('metrics-bind-address', TABLE['metrics-bind-address']), 'CONVOY_METRICS_BIND_ADDRESS');
  assert.equal(envOf('kubeconfig', TABLE.kubeconfig), undefined);
});

test('parseArgv: --f v, --f=v, booleans stand alone, help', () => {
  const rows: ReadonlyArray<[string[], Record<string, string> | 'help']> = [
    [[], {}],
    [['--shard-count', '3'], { 'shard-count': '3' }],
    [['--shard-count=3', '--allow-file-urls'], { 'shard-count': '3', 'allow-file-urls': 'true' }],
    [['--allow-file-urls', '--kubeconfig', '/k'], { 'allow-file-urls': 'true', kubeconfig: '/k' }],
    [['--allow-file-urls=false'], { 'allow-file-urls': 'false' }],
    [['--metrics-bind-address='], { 'metrics-bind-address': '' }],
    [['--shard-count', '2', '-h'], 'help'],
    [['--help'], 'help'],
  ];
  for (const [argv, want] of rows) {
    const got = parseArgv(argv, TABLE);
    if (want === 'help') assert.equal(got.kind, 'help', argv.join(' '));
    else assert.deepEqual(got.kind === 'flags' ? Object.fromEntries(got.given) : got, want, argv.join(' '));
  }
});

test('parseArgv: errors name the flag; an unknown one gets the flag meant', () => {
  const rows: ReadonlyArray<[string[], RegExp]> = [
    [['--shards', '3'], /unknown flag --shards: it is now --shard-count$/],
    [['--metrics-port=0'], /unknown flag --metrics-port: it is now --metrics-bind-address$/],
    [['--shard-cont', '3'], /unknown flag --shard-cont: did you mean --shard-count\?$/],
    [['--kube-config', 'k'], /did you mean --kubeconfig\?/],
    [['--api-bind-adress', 'x'], /did you mean --api-bind-address\?/],
    [['--zzz'], /unknown flag --zzz$/],
    [['--kubeconfig'], /--kubeconfig needs a value \(PATH\)/],
    [['stray'], /unexpected argument "stray"/],
    [['-v'], /unexpected argument "-v"/],
  ];
  for (const [argv, re] of rows) {
    assert.throws(() => parseArgv(argv, TABLE, ['api-bind-address']), re, argv.join(' '));
    assert.throws(() => parseArgv(argv, TABLE, ['api-bind-address']), FlagError);
  }
  // A renamed flag is suggested only where its new name exists.
  assert.equal(unknownFlag('lease-seconds', ['identity']), 'unknown flag --lease-seconds');
});

test('flagValue: flag, else variable (empty = unset), else default', () => {
  const given = new Map([['shard-count', '4']]);
  assert.equal(flagValue(TABLE, given, { CONVOY_SHARD_COUNT: '2' }, 'shard-count'), '4');
  assert.equal(flagValue(TABLE, new Map(), { CONVOY_SHARD_COUNT: '2' }, 'shard-count'), '2');
  assert.equal(flagValue(TABLE, new Map(), { CONVOY_SHARD_COUNT: '' }, 'shard-count'), '1');
  assert.equal(flagValue(TABLE, new Map(), { KUBECONFIG: '/k' }, 'kubeconfig'), undefined);
});

test('renamed variables are refused, not ignored', () => {
  assert.doesNotThrow(() => rejectRenamedEnv({ CONVOY_SHARD_COUNT: '2', CONVOY_SHARDS: '' }));
  const rows: ReadonlyArray<[string, RegExp]> = [
    ['CONVOY_SHARDS', /CONVOY_SHARDS is no longer read: set CONVOY_SHARD_COUNT instead/],
    ['CONVOY_LEASE_SECONDS', /set CONVOY_LEASE_DURATION/],
    ['CONVOY_LEASE_DURATION_SECONDS', /set CONVOY_LEASE_DURATION/],
    ['CONVOY_METRICS_PORT', /set CONVOY_METRICS_BIND_ADDRESS/],
    ['CONVOY_RESYNC_MS', /set CONVOY_RESYNC/],
  ];
  for (const [name, re] of rows) assert.throws(() => rejectRenamedEnv({ [name]: '1' }), re, name);
});

test('bind addresses: host:port, :port = every IPv4 interface, [v6]:port', () => {
  assert.deepEqual(parseHostPort('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(parseHostPort(':8080'), { host: '0.0.0.0', port: 8080 });
  assert.deepEqual(parseHostPort('[::]:0'), { host: '::', port: 0 });
  assert.deepEqual(parseHostPort('localhost:1'), { host: 'localhost', port: 1 });
  for (const bad of ['8080', '', '127.0.0.1', '127.0.0.1:70000', '::1:8080', 'a:b']) {
    assert.equal(parseHostPort(bad), undefined, bad);
    assert.throws(
      () => toBindAddress('--metrics-bind-address', bad),
      /--metrics-bind-address must be host:port/,
    );
  }
});

test('usage lists every flag with its variable and default', () => {
  const text = usage('convoy-x', TABLE);
  assert.match(text, /^usage: convoy-x \[flags\]/);
  assert.match(text, /--shard-count N +shards \(env CONVOY_SHARD_COUNT, default 1\)/);
  assert.match(text, /--kubeconfig PATH +kubeconfig\n/);
  assert.match(text, /--allow-file-urls +file urls \(env CONVOY_ALLOW_FILE_URLS, default false\)/);
});
