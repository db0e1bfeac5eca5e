// memberRelease and statusOf: the Release a member is given (owner, labels, fleet annotations, pin, the
// forced sync of a forced train) and the status a plan becomes (summary, Ready, the good revision).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReleaseSet } from '../../api/types.ts';
import { memberRelease, statusOf } from './executor.ts';
import type { FleetPlan } from './plan.ts';

const set: ReleaseSet = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'ReleaseSet',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'u-1',
    generation: 3,
    annotations: { 'convoy.kumodo.io/force-sync-at': 'f1' },
  },
  spec: {
    template: { metadata: { labels: { team: 'a' } }, spec: { source: { inline: { manifests: 'x' } } } },
    clusterSelector: {},
  },
};
const eu = { name: 'eu', local: false, labels: {}, annotations: {} };
const rev = { revision: 'r1', train: 'r1', template: set.spec.template, inputs: undefined, waves: [] };

test('memberRelease: owned by the set, labelled, annotated with revision and train, spec.cluster set', () => {
  const r = memberRelease(set, eu, 1, rev, undefined);
  assert.ok(typeof r !== 'string');
  assert.equal(r.metadata.name, 'web-eu');
  assert.deepEqual(r.metadata.labels, {
    team: 'a',
    'convoy.kumodo.io/releaseset': 'web',
    'convoy.kumodo.io/fleet-cluster': 'eu',
  });
  assert.deepEqual(r.metadata.annotations, {
    'convoy.kumodo.io/fleet-revision': 'r1',
    'convoy.kumodo.io/fleet-train': 'r1',
  });
  assert.deepEqual(r.metadata.ownerReferences, [
    {
      apiVersion: 'convoy.kumodo.io/v1alpha1',
      kind: 'ReleaseSet',
      name: 'web',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  assert.deepEqual(r.spec.cluster, { name: 'eu' });
  assert.equal(r.spec.pin, undefined);
});

test('memberRelease: a forced train forces the Release; a fleet rollback pins it', () => {
  const forced = memberRelease(set, eu, 1, { ...rev, train: 'r1.abcd' }, `sha256:${'a'.repeat(64)}`);
  assert.ok(typeof forced !== 'string');
  assert.equal(forced.metadata.annotations?.['convoy.kumodo.io/force-sync-at'], 'f1');
  assert.deepEqual(forced.spec.pin, { renderRef: `sha256:${'a'.repeat(64)}` });
});

test("memberRelease: a wave's own verification replaces the template's for its members only", () => {
  const check = (name: string) => ({
    soak: '1m',
    checks: [{ name, web: { url: 'http://x' }, successCondition: 'result' }],
  });
  const template = { spec: { ...set.spec.template.spec, verification: check('fleet') } };
  const waves = [{ wave: 1, verification: check('canary') }];
  const names = [0, 1, 2].map((wave) => {
    const r = memberRelease(set, eu, wave, { ...rev, template, waves }, undefined);
    return typeof r === 'string' ? r : r.spec.verification?.checks?.map((c) => c.name);
  });
  assert.deepEqual(names, [['fleet'], ['canary'], ['fleet']]);
});

test('statusOf: summary, Ready from the train, the good revision kept or replaced', () => {
  const plan: FleetPlan = {
    actions: [],
    train: { revision: 'r1', id: 'r1', state: 'Succeeded', startedAt: '2026-12-02T05:00:00Z' },
    members: [
      { cluster: 'eu', wave: 1, state: 'Succeeded', revision: 'r1' },
      { cluster: 'us', wave: 2, state: 'Paused', revision: 'r0' },
    ],
    good: true,
    message: 'm',
    requeueAfterMs: undefined,
    hold: undefined,
  };
  const s = statusOf(set, plan, 'r1', Date.parse('2026-12-02T05:00:00Z'));
  assert.equal(s.summary?.ready, '1/2');
  assert.equal(s.summary?.paused, 1);
  assert.equal(s.good?.revision, 'r1');
  assert.equal(s.observedGeneration, 3);
  assert.equal(s.conditions?.[0]?.status, 'True');
  assert.equal(s.lastHandledForceSyncAt, 'f1');
  const kept = statusOf(
    { ...set, status: { good: { revision: 'r0', template: {} } } },
    { ...plan, good: false, train: { ...plan.train, state: 'RolledBack' } },
    'r1',
    0,
  );
  assert.equal(kept.good?.revision, 'r0');
  // The good revision keeps its waves' own verification: a member that joins later gets exactly that.
  const canary = {
    soak: '1m',
    checks: [{ name: 'c', web: { url: 'http://x' }, successCondition: 'result' }],
  };
  const withWaves = {
    ...set,
    spec: { ...set.spec, strategy: { waves: [{ wave: 1, verification: canary }] } },
  };
  assert.deepEqual(statusOf(withWaves, plan, 'r1', 0).good?.waves, [{ wave: 1, verification: canary }]);
  assert.equal(kept.conditions?.[0]?.status, 'False');
});
