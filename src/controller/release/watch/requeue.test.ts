// requeueAfterPass: when the queue brings a Release back, and in which lane (src/runtime/queue.ts): a
// rollout's deadline is a change someone waits for, an interval pass is routine work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../../../api/types.ts';
import type { ControllerStatus } from '../decide/status.ts';
import { requeueAfterPass } from './requeue.ts';

const NOW = Date.parse('2026-12-06T12:00:00Z');

function release(spec: Partial<Release['spec']>): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace: 'ns', name: 'app' },
    spec: { source: { inline: { manifests: [] } }, ...spec } as Release['spec'],
  };
}

const progressing = (startedAgoMs: number): ControllerStatus => ({
  rollout: {
    renderRef: 'sha256:r',
    state: 'Progressing',
    startedAt: new Date(NOW - startedAgoMs).toISOString(),
  } as ControllerStatus['rollout'],
});

test('requeueAfterPass: the deadline comes back as a change, the interval as routine work', () => {
  const deadline = { failurePolicy: { deadline: '3m' } } as Partial<Release['spec']>;
  const rows: ReadonlyArray<readonly [string, Release, ControllerStatus, unknown]> = [
    ['no interval, no rollout', release({}), {}, { kind: 'done' }],
    [
      'interval only',
      release({ syncPolicy: { interval: '5m' } }),
      {},
      { kind: 'requeueAfter', ms: 300_000, priority: 'routine' },
    ],
    [
      'a rollout deadline before the interval',
      release({ ...deadline, syncPolicy: { interval: '5m' } }),
      progressing(60_000),
      { kind: 'requeueAfter', ms: 120_000, priority: 'change' },
    ],
    [
      'the interval before the rollout deadline',
      release({ ...deadline, syncPolicy: { interval: '1m' } }),
      progressing(0),
      { kind: 'requeueAfter', ms: 60_000, priority: 'routine' },
    ],
  ];
  for (const [name, r, status, want] of rows) {
    assert.deepEqual(requeueAfterPass(r, status, NOW, false), want, name);
  }
});
