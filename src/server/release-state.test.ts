// The one state of a Release, by table: each row a status users saw shown as contradicting columns
// (Failed beside Ready True, awaiting approval as a red Ready False, Healthy True without assessment).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2 } from '../api/testsupport.ts';
import type { Release, ReleaseStatus } from '../api/types.ts';
import { type ReleaseState, releaseState } from './release-state.ts';

const T = '2030-01-01T00:00:00Z';

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: T,
});

const release = (status: ReleaseStatus, spec: Partial<Release['spec']> = {}, deleting = false): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: {
    name: 'web',
    namespace: 'ns',
    generation: 1,
    ...(deleting ? { deletionTimestamp: T } : {}),
  },
  spec: { source: { inline: { manifests: 'x' } }, healthAssessment: {}, ...spec },
  status: { observedGeneration: 1, currentRender: { renderRef: R2, revision: 'b' }, ...status },
});

const ready = cond('Ready', 'True', 'Synced');
const healthy = cond('Healthy', 'True', 'Healthy');

const rows: readonly (readonly [string, Release, Omit<ReleaseState, 'pinned'>])[] = [
  ['never reported: Pending', release({}), { state: 'Pending', tone: 'busy', reason: '', health: 'Pending' }],
  [
    'applied and healthy: Ready',
    release({ conditions: [ready, healthy] }),
    { state: 'Ready', tone: 'ok', reason: '', health: 'Healthy' },
  ],
  [
    'a rollout that Failed (rollback Never) leaves Ready True: Failed, never Ready',
    release({
      conditions: [ready, cond('Healthy', 'False', 'Degraded')],
      rollout: { state: 'Failed', renderRef: R2, reason: 'DeadlineExceeded' },
    }),
    { state: 'Failed', tone: 'bad', reason: 'DeadlineExceeded', health: 'Degraded' },
  ],
  [
    'awaiting approval: its own calm state, not a red Ready False',
    release(
      { conditions: [cond('Ready', 'False', 'WaitingForApproval'), healthy] },
      { syncPolicy: { mode: 'Manual' } },
    ),
    { state: 'AwaitingApproval', tone: 'calm', reason: 'WaitingForApproval', health: 'Healthy' },
  ],
  [
    'no healthAssessment: NotAssessed, not Healthy True',
    release(
      { conditions: [ready, cond('Healthy', 'True', 'NotConfigured')] },
      { healthAssessment: undefined },
    ),
    { state: 'Ready', tone: 'ok', reason: '', health: 'NotAssessed' },
  ],
  [
    'rolled back (rollout of the current render)',
    release({
      conditions: [cond('Ready', 'False', 'RolledBack'), healthy],
      rollout: { state: 'RolledBack', renderRef: R2, reason: 'DeadlineExceeded' },
    }),
    { state: 'RolledBack', tone: 'bad', reason: 'DeadlineExceeded', health: 'Healthy' },
  ],
  [
    'a rollout in progress, Ready True meanwhile',
    release({
      conditions: [ready, cond('Healthy', 'Unknown', 'Progressing')],
      rollout: { state: 'Progressing', renderRef: R2, startedAt: T },
    }),
    { state: 'Progressing', tone: 'busy', reason: '', health: 'Progressing' },
  ],
  [
    'waiting for a hook (Ready False WaitingForHook): Progressing with that reason',
    release({ conditions: [cond('Ready', 'False', 'WaitingForHook')] }),
    { state: 'Progressing', tone: 'busy', reason: 'WaitingForHook', health: 'Pending' },
  ],
  [
    'a failed dry run: Failed with its reason',
    release({ conditions: [cond('Ready', 'False', 'DryRunFailed'), cond('Healthy', 'Unknown', 'Pending')] }),
    { state: 'Failed', tone: 'bad', reason: 'DryRunFailed', health: 'Pending' },
  ],
  [
    'applied, an object Degraded, no rollout: Degraded',
    release({ conditions: [ready, cond('Healthy', 'False', 'Degraded')] }),
    { state: 'Degraded', tone: 'bad', reason: 'Degraded', health: 'Degraded' },
  ],
  [
    'applied, objects not healthy yet, no rollout: Progressing',
    release({ conditions: [ready, cond('Healthy', 'Unknown', 'Progressing')] }),
    { state: 'Progressing', tone: 'busy', reason: 'HealthProgressing', health: 'Progressing' },
  ],
  [
    'suspended wins over everything but deletion',
    release({ conditions: [cond('Ready', 'False', 'DryRunFailed')] }, { suspend: true }),
    { state: 'Suspended', tone: 'calm', reason: 'Suspended', health: 'Pending' },
  ],
  [
    'held by the cluster wave: Waiting',
    release({ conditions: [cond('Ready', 'Unknown', 'WaitingForClusterWave')] }),
    { state: 'Waiting', tone: 'calm', reason: 'WaitingForClusterWave', health: 'Pending' },
  ],
  [
    'being deleted',
    release({ conditions: [ready, healthy] }, {}, true),
    { state: 'Deleting', tone: 'busy', reason: 'Deleting', health: 'Healthy' },
  ],
  [
    "an older render's Failed rollout says nothing of the current render",
    release({
      conditions: [ready, healthy],
      rollout: { state: 'Failed', renderRef: R1, reason: 'DeadlineExceeded' },
    }),
    { state: 'Ready', tone: 'ok', reason: '', health: 'Healthy' },
  ],
  [
    'an unknown Ready reason False (a newer controller) is a failure, not Ready',
    release({ conditions: [cond('Ready', 'False', 'SomethingNew')] }),
    { state: 'Failed', tone: 'bad', reason: 'SomethingNew', health: 'Pending' },
  ],
];

for (const [name, r, want] of rows) {
  test(`releaseState: ${name}`, () => {
    assert.deepEqual(releaseState(r), { ...want, pinned: false });
  });
}

test('releaseState: a pin is told beside the state, never instead of it', () => {
  const r = release({ conditions: [ready, healthy] }, { pin: { renderRef: R1 } });
  assert.deepEqual(releaseState(r), {
    state: 'Ready',
    tone: 'ok',
    reason: '',
    health: 'Healthy',
    pinned: true,
  });
});
