// memberSpec and viewOf/outcomeOf by tables: per-cluster inputs, and a stale Release status never read as new.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../../api/types.ts';
import { fleetRevision, memberSpec, type Template, trainId, waveVerifications } from './member-spec.ts';
import { outcomeOf, viewOf } from './observe.ts';

const template: Template = {
  spec: {
    source: { inline: { manifests: 'kind: ConfigMap' } },
    render: { type: 'Helm', substitute: { A: 'a' }, helm: { values: { image: { tag: '1' }, keep: true } } },
    cluster: { name: 'ignored' },
  },
};
const cluster = {
  name: 'eu',
  local: false,
  labels: { region: 'eu-west', tier: 'gold' },
  annotations: { owner: 'team-a' },
};

test('memberSpec: labels, annotations and the per-cluster list fill substitutions and Helm values', () => {
  const out = memberSpec(
    template,
    {
      substituteFromLabels: { REGION: 'region' },
      substituteFromAnnotations: { OWNER: 'owner' },
      valuesFromLabels: { 'image.tier': 'tier' },
      clusters: [{ cluster: 'eu', substitute: { A: 'override' }, values: { image: { tag: '2' } } }],
    },
    cluster,
  );
  assert.equal(out.kind, 'ok');
  if (out.kind !== 'ok') return;
  assert.deepEqual(out.spec.cluster, { name: 'eu' });
  assert.deepEqual(out.spec.render?.substitute, { A: 'override', REGION: 'eu-west', OWNER: 'team-a' });
  assert.deepEqual(out.spec.render?.helm?.values, { image: { tag: '2', tier: 'gold' }, keep: true });
  assert.deepEqual(
    template.spec.render?.helm?.values,
    { image: { tag: '1' }, keep: true },
    'template untouched',
  );
});

test('memberSpec: a missing label names the cluster and the field; the local member has no spec.cluster', () => {
  const out = memberSpec(template, { substituteFromLabels: { ZONE: 'zone' } }, cluster);
  assert.deepEqual(out, {
    kind: 'error',
    message: 'Cluster eu has no label zone (spec.inputs.substituteFromLabels.ZONE)',
  });
  const local = memberSpec(template, undefined, { name: 'local', local: true, labels: {}, annotations: {} });
  assert.equal(local.kind === 'ok' && local.spec.cluster, undefined);
});

test('memberSpec: Helm values without render.type Helm are refused', () => {
  const plain: Template = { spec: { source: { inline: { manifests: 'x' } } } };
  const out = memberSpec(plain, { valuesFromLabels: { a: 'region' } }, cluster);
  assert.equal(out.kind, 'error');
});

test('fleetRevision: stable over key order, changes with inputs; trainId adds the forced sync', () => {
  const a = fleetRevision({ spec: { source: { inline: { manifests: 'x' } }, suspend: false } }, undefined);
  const b = fleetRevision({ spec: { suspend: false, source: { inline: { manifests: 'x' } } } }, {});
  assert.equal(a, b);
  assert.notEqual(a, fleetRevision({ spec: { source: { inline: { manifests: 'x' } } } }, undefined));
  // A wave's own verification is part of what members run: a new revision; none hashes as before.
  const t = { spec: { source: { inline: { manifests: 'x' } }, suspend: false } };
  assert.equal(fleetRevision(t, undefined, []), a);
  const canary = {
    soak: '1m',
    checks: [{ name: 'c', web: { url: 'http://x' }, successCondition: 'result' }],
  };
  assert.notEqual(fleetRevision(t, undefined, [{ wave: 1, verification: canary }]), a);
  assert.deepEqual(
    waveVerifications({
      strategy: {
        waves: [
          { wave: 3, verification: canary },
          { wave: 2, soak: '1m' },
          { wave: 1, verification: canary },
        ],
      },
    }).map((w) => w.wave),
    [1, 3],
  );
  assert.equal(trainId(a, undefined), a);
  assert.match(trainId(a, '2026-12-02T05:00:00Z'), new RegExp(`^${a}\\.[0-9a-f]{8}$`));
});

const ref = (c: string) => `sha256:${c.repeat(64)}`;
function rel(over: Partial<Release['status']> & { generation?: number; force?: string } = {}): Release {
  const { generation = 2, force, ...status } = over;
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: {
      name: 'set-eu',
      generation,
      annotations: {
        'convoy.kumodo.io/fleet-train': 't1',
        ...(force === undefined ? {} : { 'convoy.kumodo.io/force-sync-at': force }),
      },
    },
    spec: { source: { inline: { manifests: 'x' } }, failurePolicy: { deadline: '1m' } },
    status: {
      observedGeneration: 2,
      currentRender: { renderRef: ref('b'), revision: 'r' },
      rollout: { state: 'Succeeded', renderRef: ref('b'), finishedAt: '2026-12-02T05:00:00Z' },
      lastHealthy: { renderRef: ref('b'), revision: 'r', time: '2026-12-02T05:00:00Z' },
      history: [
        { renderRef: ref('a'), revision: 'q', appliedAt: '2026-12-02T04:00:00Z', result: 'Succeeded' },
        { renderRef: ref('b'), revision: 'r', appliedAt: '2026-12-02T04:59:00Z' },
      ],
      ...status,
    },
  };
}

test('outcomeOf: generation, forced sync and the current render decide whether the rollout counts', () => {
  const cases: [string, Release, string][] = [
    ['observed and current', rel(), 'Succeeded'],
    ['generation not observed', rel({ generation: 3 }), 'Pending'],
    ['forced sync not handled', rel({ force: 'f1' }), 'Pending'],
    ['forced sync handled', rel({ force: 'f1', lastHandledForceSyncAt: 'f1' }), 'Succeeded'],
    [
      'rollout of another render',
      rel({ rollout: { state: 'Succeeded', renderRef: ref('c') } }),
      'Progressing',
    ],
    [
      'rolled back',
      rel({ rollout: { state: 'RolledBack', renderRef: ref('b'), reason: 'DeadlineExceeded' } }),
      'RolledBack',
    ],
  ];
  for (const [name, r, want] of cases) assert.equal(outcomeOf(viewOf(r)).kind, want, name);
});

test('viewOf: the healthy render from before the current one comes from history when lastHealthy is current', () => {
  assert.equal(viewOf(rel()).healthyBefore, ref('a'));
  assert.equal(
    viewOf(rel({ lastHealthy: { renderRef: ref('d'), revision: 'p', time: '2026-12-02T04:00:00Z' } }))
      .healthyBefore,
    ref('d'),
  );
});

test('viewOf: the Verified condition counts only when it is of the spec the set gave', () => {
  const verified = (observedGeneration: number) =>
    rel({
      conditions: [
        {
          type: 'Verified',
          status: 'Unknown',
          reason: 'Verifying',
          message: 'verifying: running: canary',
          lastTransitionTime: '2026-12-02T05:00:00Z',
          observedGeneration,
        },
      ],
    });
  assert.deepEqual(viewOf(verified(2)).verified, {
    reason: 'Verifying',
    message: 'verifying: running: canary',
  });
  assert.equal(viewOf(verified(1)).verified, undefined, 'of the spec before');
});
