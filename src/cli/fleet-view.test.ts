// fleetOutcome and fleetLines by tables: when `convoy fleet watch` ends, and what `fleet status` shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReleaseSet, ReleaseSetStatus } from '../api/types.ts';
import { fleetLines, fleetOutcome } from './fleet-view.ts';

const T = '2026-12-02T05:00:00Z';
function set(status: ReleaseSetStatus | undefined, generation = 1): ReleaseSet {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseSet',
    metadata: { name: 'web', namespace: 'shop', generation },
    spec: { template: { spec: { source: { inline: { manifests: 'x' } } } } },
    ...(status === undefined ? {} : { status }),
  };
}
const st = (
  train: NonNullable<ReleaseSetStatus['train']>['state'],
  extra: Partial<ReleaseSetStatus> = {},
): ReleaseSetStatus => ({
  observedGeneration: 1,
  revision: 'r2',
  train: { revision: 'r2', id: 'r2', state: train, startedAt: T, failedCluster: 'eu', rolledBack: ['us'] },
  summary: { total: 3, succeeded: 3, progressing: 0, waiting: 0, failed: 0, paused: 0, ready: '3/3' },
  clusters: [{ cluster: 'us', wave: 1, state: 'Succeeded', revision: 'r2', health: 'True' }],
  ...extra,
});

test('fleetOutcome: 0 when the revision reached every cluster, 1 on a fleet rollback or stop, running otherwise', () => {
  const cases: [string, ReleaseSet, string, number?][] = [
    ['no status', set(undefined), 'running'],
    ['generation not observed', set(st('Succeeded'), 2), 'running'],
    ['train of an older revision', set(st('Succeeded', { revision: 'r3' })), 'running'],
    ['progressing', set(st('Progressing')), 'running'],
    ['succeeded', set(st('Succeeded')), 'done', 0],
    ['rolled back', set(st('RolledBack')), 'done', 1],
    ['stopped', set(st('Stopped')), 'done', 1],
  ];
  for (const [name, s, kind, code] of cases) {
    const o = fleetOutcome(s);
    assert.equal(o.kind, kind, name);
    if (o.kind === 'done') assert.equal(o.code, code, name);
  }
  const rb = fleetOutcome(set(st('RolledBack')));
  assert.match(rb.line, /failed on eu; rolled back us/);
});

test('fleetLines: summary, train, failure and the per-cluster table', () => {
  const lines = fleetLines(set(st('RolledBack')), false);
  assert.match(lines[0] ?? '', /releaseset shop\/web {2}revision r2 {2}good - {2}ready 3\/3/);
  assert.match(lines[1] ?? '', /train r2: RolledBack/);
  assert.ok(lines.includes('rolled back: us'));
  assert.match(
    lines.find((l) => l.startsWith('CLUSTER')) ?? '',
    /CLUSTER +WAVE +REVISION +STATE +HEALTH +MESSAGE/,
  );
  assert.match(lines[lines.length - 1] ?? '', /^us +1 +r2 +Succeeded +True +-$/);
  assert.match(fleetLines(set(undefined), false)[0] ?? '', /no status yet/);
});

test('fleetLines: a held train says why, with the member, the cluster and the cause', () => {
  const message =
    'revision r2 holds at wave 1: member web-eu (cluster eu): Cluster eu is not ready: SecretNotFound: Secret "eu-kubeconfig" not found';
  const held = st('Progressing', {
    conditions: [
      { type: 'Ready', status: 'False', reason: 'ClusterNotReady', message, lastTransitionTime: T },
    ],
  });
  assert.ok(fleetLines(set(held), false).includes(`held: ClusterNotReady: ${message}`));
  const running = st('Progressing', {
    conditions: [
      { type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'x', lastTransitionTime: T },
    ],
  });
  assert.ok(!fleetLines(set(running), false).some((l) => l.startsWith('held:')));
});
