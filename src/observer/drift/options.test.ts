import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlagError } from '../../cmd/flags.ts';
import { takeDriftInterval } from './options.ts';

test('takeDriftInterval takes the flag (either spelling) or its variable off argv', () => {
  const cases: [string[], Record<string, string>, string[], unknown][] = [
    [['--kubeconfig', 'k'], {}, ['--kubeconfig', 'k'], { kind: 'perRelease' }],
    [
      ['--drift-interval', '30s', '--kubeconfig', 'k'],
      {},
      ['--kubeconfig', 'k'],
      { kind: 'fixed', ms: 30_000 },
    ],
    [['--drift-interval=2m'], {}, [], { kind: 'fixed', ms: 120_000 }],
    [[], { CONVOY_DRIFT_INTERVAL: '1m' }, [], { kind: 'fixed', ms: 60_000 }],
    [['--drift-interval=5s'], { CONVOY_DRIFT_INTERVAL: '1m' }, [], { kind: 'fixed', ms: 5_000 }],
    [[], { CONVOY_DRIFT_INTERVAL: '' }, [], { kind: 'perRelease' }],
    [['--drift-interval', '0'], {}, [], { kind: 'off' }],
  ];
  for (const [argv, env, rest, interval] of cases) {
    assert.deepEqual(takeDriftInterval(argv, env), { rest, interval }, argv.join(' '));
  }
});

test('takeDriftInterval refuses what is not a usable duration', () => {
  for (const argv of [
    ['--drift-interval'],
    ['--drift-interval=soon'],
    ['--drift-interval=500ms'],
    ['--drift-interval=-1m'],
  ]) {
    assert.throws(() => takeDriftInterval(argv, {}), FlagError, argv.join(' '));
  }
});
