// clusterWave, selectMembers and planMembers by tables: a Cluster's wave from spec.wave or
// strategy.waveLabel (a bad label value is reported on its row), and the local member of spec.local.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION } from '../../api/constants.ts';
import type { Cluster, Release, ReleaseSetSpec } from '../../api/types.ts';
import { clusterWave, planMembers, type SelectedMember, selectMembers } from './members.ts';
import { planFleet } from './plan.ts';

function cluster(name: string, labels: Record<string, string>, spec: Cluster['spec'] = {}): Cluster {
  return { apiVersion: API_VERSION, kind: 'Cluster', metadata: { name, labels }, spec };
}

const template: ReleaseSetSpec['template'] = {
  spec: { source: { inline: { manifests: 'kind: ConfigMap' } }, cluster: { name: 'ignored' } },
};

test('clusterWave: spec.wave, or the waveLabel label when set; a value that is not an int32 names the Cluster and the label', () => {
  const bad = (v: string, why: string) =>
    `Cluster eu: label wave (spec.strategy.waveLabel) is ${JSON.stringify(v)}, ${why}`;
  const cases: ReadonlyArray<readonly [string, Cluster, string | undefined, number | string]> = [
    ['spec.wave', cluster('eu', {}, { wave: 2 }), undefined, 2],
    ['neither: 0', cluster('eu', {}), undefined, 0],
    ['no waveLabel: a label named wave is ignored', cluster('eu', { wave: '5' }, { wave: 2 }), undefined, 2],
    ['label', cluster('eu', { wave: '3' }), 'wave', 3],
    ['label negative', cluster('eu', { wave: '-1' }), 'wave', -1],
    ['label with leading zeros', cluster('eu', { wave: '007' }), 'wave', 7],
    ['both set: the label wins', cluster('eu', { wave: '1' }, { wave: 3 }), 'wave', 1],
    ['label missing: 0, spec.wave ignored', cluster('eu', { other: '4' }, { wave: 3 }), 'wave', 0],
    ['label not a number', cluster('eu', { wave: 'two' }), 'wave', bad('two', 'not an integer')],
    ['label a decimal', cluster('eu', { wave: '1.5' }), 'wave', bad('1.5', 'not an integer')],
    ['label empty', cluster('eu', { wave: '' }), 'wave', bad('', 'not an integer')],
    ['label with a sign +', cluster('eu', { wave: '+1' }), 'wave', bad('+1', 'not an integer')],
    ['label int32 max', cluster('eu', { wave: '2147483647' }), 'wave', 2147483647],
    ['label int32 min', cluster('eu', { wave: '-2147483648' }), 'wave', -2147483648],
    [
      'label beyond int32 (the status row would be refused)',
      cluster('eu', { wave: '2147483648' }),
      'wave',
      bad('2147483648', 'outside the int32 range'),
    ],
  ];
  for (const [what, c, label, want] of cases) assert.deepEqual(clusterWave(c, label), want, what);
});

test('selectMembers: selected Clusters with their waves and pauses, then the local member of spec.local', () => {
  const clusters = [
    cluster('us', { fleet: 'web', wave: '1' }, { wave: 9 }),
    cluster('eu', { fleet: 'web', wave: 'x' }, { paused: true }),
    cluster('ap', { fleet: 'other', wave: '2' }),
  ];
  const row = (m: SelectedMember) => [m.cluster.name, m.cluster.local, m.wave, m.paused, m.problem];
  const badEu = 'Cluster eu: label wave (spec.strategy.waveLabel) is "x", not an integer';
  const clash =
    'Cluster local matches spec.clusterSelector and spec.local is set: both would be member local; rename the Cluster or drop spec.local';
  const cases: ReadonlyArray<readonly [string, Parameters<typeof selectMembers>[0], Cluster[], unknown[]]> = [
    ['no selector, no local: none', {}, clusters, []],
    ['local only, default wave 0', { local: {} }, clusters, [['local', true, 0, false, undefined]]],
    ['local only, its wave', { local: { wave: 4 } }, clusters, [['local', true, 4, false, undefined]]],
    [
      'selector by spec.wave, then local',
      { clusterSelector: { matchLabels: { fleet: 'web' } }, local: { wave: 1 } },
      clusters,
      [
        ['us', false, 9, false, undefined],
        ['eu', false, 0, true, undefined],
        ['local', true, 1, false, undefined],
      ],
    ],
    [
      'selector by waveLabel: a bad value is the member problem, wave 0',
      { clusterSelector: { matchLabels: { fleet: 'web' } }, strategy: { waveLabel: 'wave' } },
      clusters,
      [
        ['us', false, 1, false, undefined],
        ['eu', false, 0, true, badEu],
      ],
    ],
    [
      'a selected Cluster named local and spec.local: one member local, with the clash as its problem',
      { clusterSelector: {}, local: { wave: 2 } },
      [cluster('local', {}, { wave: 5 }), cluster('us', {})],
      [
        ['us', false, 0, false, undefined],
        ['local', true, 2, false, clash],
      ],
    ],
    [
      'a Cluster named local without spec.local is an ordinary member',
      { clusterSelector: {} },
      [cluster('local', {}, { wave: 5 })],
      [['local', false, 5, false, undefined]],
    ],
  ];
  for (const [what, spec, cs, want] of cases) assert.deepEqual(selectMembers(spec, cs).map(row), want, what);
});

test('planMembers: the local member gets its owned Release; a foreign Release or a bad wave label blocks a member', () => {
  const release = (name: string, member: string): Release => ({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: 'shop', generation: 1, labels: { member } },
    spec: template.spec,
  });
  const spec: ReleaseSetSpec = {
    template,
    clusterSelector: {},
    local: { wave: 3 },
    strategy: { waveLabel: 'wave' },
  };
  const selected = selectMembers(spec, [
    cluster('us', { wave: '1' }),
    cluster('eu', { wave: 'x' }),
    cluster('ap', { wave: '2' }),
  ]);
  const members = planMembers({
    set: 'web',
    namespace: 'shop',
    spec,
    selected,
    owned: new Map([['local', release('web-local', 'local')]]),
    releaseNamed: (n) => (n === 'web-ap' ? release('web-ap', 'ap') : undefined),
    prior: new Map([['local', { cluster: 'local', wave: 3, state: 'Succeeded' as const, revision: 'r1' }]]),
  });
  assert.deepEqual(
    members.map((m) => [m.cluster, m.wave, m.inputError, m.release?.name, m.prior?.revision]),
    [
      ['us', 1, undefined, undefined, undefined],
      [
        'eu',
        0,
        'Cluster eu: label wave (spec.strategy.waveLabel) is "x", not an integer',
        undefined,
        undefined,
      ],
      ['ap', 2, 'Release shop/web-ap exists and is not owned by ReleaseSet web', undefined, undefined],
      ['local', 3, undefined, 'web-local', 'r1'],
    ],
  );

  // What the set's status then says: the bad label on eu's row (state Error), the local member in wave 3.
  const plan = planFleet({
    now: '2026-12-02T05:00:00Z',
    nowMs: Date.parse('2026-12-02T05:00:00Z'),
    revision: 'r2',
    trainId: 'r2',
    priorTrain: undefined,
    goodRevision: undefined,
    maxParallel: undefined,
    soakMs: 0,
    waveSoakMs: new Map(),
    fleetRollback: false,
    members,
    strays: [],
    noMembers: 'none',
  });
  const rows = new Map(plan.members.map((r) => [r.cluster, r]));
  assert.equal(rows.get('eu')?.state, 'Error');
  assert.match(rows.get('eu')?.message ?? '', /Cluster eu: label wave \(spec\.strategy\.waveLabel\) is "x"/);
  assert.equal(rows.get('local')?.wave, 3);
});
