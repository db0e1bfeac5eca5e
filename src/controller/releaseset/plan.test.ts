// planFleet by tables: wave order, maxParallel, soak, the failure policy, pauses, joins and strays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FleetMemberStatus, FleetTrain } from '../../api/types.ts';
import { type FleetAction, type PlanInput, planFleet } from './plan.ts';
import { input, member, NOW, R, ref, release } from './testsupport.ts';

const old = (state: 'Succeeded' = 'Succeeded') => release('rev1', state);
const states = (ms: readonly FleetMemberStatus[]) => Object.fromEntries(ms.map((m) => [m.cluster, m.state]));

type Row = {
  name: string;
  in: PlanInput;
  actions: FleetAction[];
  train: FleetTrain['state'];
  states?: Record<string, string>;
  good?: boolean;
};

const progressing: FleetTrain = { revision: R, id: R, state: 'Progressing', startedAt: NOW };

const rows: Row[] = [
  {
    name: 'a new train starts with wave 1 only',
    in: input([member('c1', 1, old()), member('c2', 2, old()), member('c3', 3, old())]),
    actions: [{ kind: 'apply', cluster: 'c1', which: 'train' }],
    train: 'Progressing',
    states: { c1: 'Progressing', c2: 'Succeeded', c3: 'Succeeded' },
  },
  {
    name: 'wave 2 starts when wave 1 Succeeded the train',
    in: input([member('c1', 1, release(R, 'Succeeded')), member('c2', 2, old()), member('c3', 3, old())], {
      priorTrain: progressing,
    }),
    actions: [{ kind: 'apply', cluster: 'c2', which: 'train' }],
    train: 'Progressing',
  },
  {
    name: 'a stale status (generation not observed) is not Succeeded: wave 2 waits',
    in: input([member('c1', 1, release(R, 'Pending')), member('c2', 2, old())], { priorTrain: progressing }),
    actions: [],
    train: 'Progressing',
    states: { c1: 'Progressing', c2: 'Succeeded' },
  },
  {
    name: 'a Succeeded rollout of another render is not this one',
    in: input(
      [
        member('c1', 1, release(R, 'Succeeded', { rollout: { state: 'Succeeded', current: false } })),
        member('c2', 2, old()),
      ],
      { priorTrain: progressing },
    ),
    actions: [],
    train: 'Progressing',
  },
  {
    name: 'maxParallel 1: one member of the wave at a time',
    in: input([member('a', 1, old()), member('b', 1, old()), member('c', 1, old())], { maxParallel: 1 }),
    actions: [{ kind: 'apply', cluster: 'a', which: 'train' }],
    train: 'Progressing',
    states: { a: 'Progressing', b: 'Waiting', c: 'Waiting' },
  },
  {
    name: 'maxParallel 2 with one in flight: one more',
    in: input([member('a', 1, release(R, 'Progressing')), member('b', 1, old()), member('c', 1, old())], {
      maxParallel: 2,
      priorTrain: progressing,
    }),
    actions: [{ kind: 'apply', cluster: 'b', which: 'train' }],
    train: 'Progressing',
  },
  {
    name: 'failure on wave 2 with fleetRollback: stop before wave 3, pin waves 1 and 2 back',
    in: input(
      [
        member('c1', 1, release(R, 'Succeeded')),
        member('c2', 2, release(R, 'Failed')),
        member('c3', 3, old()),
      ],
      { priorTrain: progressing },
    ),
    actions: [
      { kind: 'pin', cluster: 'c1', renderRef: ref('a') },
      { kind: 'pin', cluster: 'c2', renderRef: ref('a') },
    ],
    train: 'RolledBack',
    states: { c1: 'RolledBack', c2: 'RolledBack', c3: 'Succeeded' },
  },
  {
    name: 'failure without fleetRollback: the train stops, nothing pinned',
    in: input(
      [
        member('c1', 1, release(R, 'Succeeded')),
        member('c2', 2, release(R, 'RolledBack')),
        member('c3', 3, old()),
      ],
      { priorTrain: progressing, fleetRollback: false },
    ),
    actions: [],
    train: 'Stopped',
    states: { c1: 'Succeeded', c2: 'RolledBack', c3: 'Succeeded' },
  },
  {
    name: 'a rolled back train pins only what is not pinned yet, and uses the recorded rollbackTo',
    in: input(
      [
        member('c1', 1, release(R, 'Succeeded', { pin: ref('c') }), {
          prior: { cluster: 'c1', wave: 1, state: 'RolledBack', revision: R, rollbackTo: ref('c') },
        }),
        member('c2', 2, release(R, 'Failed'), {
          prior: { cluster: 'c2', wave: 2, state: 'Failed', revision: R, rollbackTo: ref('d') },
        }),
      ],
      { priorTrain: { ...progressing, state: 'RolledBack', failedCluster: 'c2' } },
    ),
    actions: [{ kind: 'pin', cluster: 'c2', renderRef: ref('d') }],
    train: 'RolledBack',
  },
  {
    name: 'a paused cluster holds, and so do the waves above it',
    in: input(
      [
        member('c1', 1, release(R, 'Succeeded')),
        member('c2', 2, old(), { paused: true }),
        member('c3', 3, old()),
      ],
      { priorTrain: progressing },
    ),
    actions: [],
    train: 'Progressing',
    states: { c1: 'Succeeded', c2: 'Paused', c3: 'Succeeded' },
  },
  {
    name: 'a member with no Release gets the good revision first, whatever its wave',
    in: input([member('c1', 1, release(R, 'Progressing')), member('c4', 3, undefined)], {
      priorTrain: progressing,
    }),
    actions: [{ kind: 'apply', cluster: 'c4', which: 'good' }],
    train: 'Progressing',
  },
  {
    name: 'the first train (no good revision): a member with no Release waits for its wave',
    in: input([member('c1', 1, undefined), member('c2', 2, undefined)], { goodRevision: undefined }),
    actions: [{ kind: 'apply', cluster: 'c1', which: 'train' }],
    train: 'Progressing',
    states: { c1: 'Progressing', c2: 'Waiting' },
  },
  {
    name: 'every member Succeeded: the train Succeeded and becomes the good revision',
    in: input([member('c1', 1, release(R, 'Succeeded')), member('c2', 2, release(R, 'Succeeded'))], {
      priorTrain: progressing,
    }),
    actions: [],
    train: 'Succeeded',
    good: true,
  },
  {
    name: 'soak: wave 2 waits until wave 1 was Succeeded long enough',
    in: input([member('c1', 1, release(R, 'Succeeded')), member('c2', 2, old())], {
      priorTrain: progressing,
      soakMs: 60_000,
    }),
    actions: [],
    train: 'Progressing',
  },
  {
    name: 'soak passed: wave 2 starts',
    in: input([member('c1', 1, release(R, 'Succeeded')), member('c2', 2, old())], {
      priorTrain: progressing,
      soakMs: 5_000,
    }),
    actions: [{ kind: 'apply', cluster: 'c2', which: 'train' }],
    train: 'Progressing',
  },
  {
    name: 'a forced sync is a new train: a member on the old one is given it again',
    in: input([member('c1', 1, release(R, 'RolledBack'))], {
      trainId: `${R}.f00`,
      priorTrain: { ...progressing, state: 'RolledBack' },
    }),
    actions: [{ kind: 'apply', cluster: 'c1', which: 'train' }],
    train: 'Progressing',
  },
  {
    name: 'inputs a cluster cannot fill: Error, nothing applied, the wave does not finish',
    in: input([
      member('c1', 1, old(), { inputError: 'Cluster c1 has no label region' }),
      member('c2', 2, old()),
    ]),
    actions: [],
    train: 'Progressing',
    states: { c1: 'Error', c2: 'Succeeded' },
  },
  {
    name: 'a Release whose cluster left the selector is deleted',
    in: input([member('c1', 1, release(R, 'Succeeded'))], { priorTrain: progressing, strays: ['set-gone'] }),
    actions: [{ kind: 'delete', release: 'set-gone' }],
    train: 'Succeeded',
    good: true,
  },
];

for (const row of rows) {
  test(`planFleet: ${row.name}`, () => {
    const plan = planFleet(row.in);
    assert.deepEqual(plan.actions, row.actions);
    assert.equal(plan.train.state, row.train);
    if (row.states !== undefined) assert.deepEqual(states(plan.members), row.states);
    assert.equal(plan.good, row.good ?? false);
  });
}

test('planFleet: a fleet rollback says which cluster failed, why, and what was rolled back', () => {
  const plan = planFleet(rows[6]?.in as PlanInput);
  assert.equal(plan.train.failedCluster, 'c2');
  assert.equal(plan.train.reason, 'DeadlineExceeded');
  assert.deepEqual(plan.train.rolledBack, ['c1', 'c2']);
  assert.match(plan.message, /revision rev2 failed on cluster c2 \(wave 2\)/);
});

test('planFleet: soak asks for a requeue when the soak ends', () => {
  const plan = planFleet(rows[13]?.in as PlanInput);
  assert.equal(plan.requeueAfterMs, 50_000);
  assert.match(plan.message, /wave 1 soaks until 2026-12-02T05:00:50/);
});

test('planFleet: giving the train records the healthy render to go back to', () => {
  const plan = planFleet(rows[1]?.in as PlanInput);
  const c2 = plan.members.find((m) => m.cluster === 'c2');
  assert.equal(c2?.rollbackTo, ref('a'));
  assert.equal(c2?.startedAt, NOW);
  assert.equal(plan.train.wave, 2);
});

test('planFleet: a forced sync re-running a revision keeps the render recorded before it first came', () => {
  // c1 took rev2 (healthy there: its lastHealthy became rev2's render b) and was rolled back to a.
  const c1 = member('c1', 1, release(R, 'Succeeded', { lastHealthyRenderRef: ref('b'), pin: ref('a') }), {
    prior: { cluster: 'c1', wave: 1, state: 'RolledBack', revision: R, rollbackTo: ref('a') },
  });
  const plan = planFleet(input([c1], { trainId: `${R}.f00d`, priorTrain: undefined }));
  assert.deepEqual(plan.actions, [{ kind: 'apply', cluster: 'c1', which: 'train' }]);
  assert.equal(plan.members[0]?.rollbackTo, ref('a'));
  // A new revision records the member's last healthy render, as before.
  const next = planFleet(input([member('c1', 1, release('rev1', 'Succeeded'))]));
  assert.equal(next.members[0]?.rollbackTo, ref('a'));
});

test('planFleet: holds, each Ready=False naming the member, the cluster and the cause', () => {
  const dryRun = release(R, 'Progressing', {
    rollout: undefined,
    blocked: { reason: 'DryRunFailed', message: 'ConfigMap shop/web: data.x: Invalid value' },
  });
  const cases: ReadonlyArray<
    readonly [
      string,
      PlanInput,
      string | undefined,
      string | undefined,
      Record<string, string>,
      FleetAction[],
    ]
  > = [
    [
      'a selector that matches no Cluster',
      input([]),
      'NoClusters',
      'spec.clusterSelector {} matches no Cluster in namespace shop: no cluster to roll revision rev2 out to',
      {},
      [],
    ],
    [
      'a member Stalled in wave 1 holds wave 2',
      input([member('c1', 1, dryRun), member('c2', 2, old())], { priorTrain: progressing }),
      'MemberStalled',
      'revision rev2 holds at wave 1: member set-c1 (cluster c1): its Release cannot go on: DryRunFailed: ConfigMap shop/web: data.x: Invalid value',
      { c1: 'Stalled', c2: 'Succeeded' },
      [],
    ],
    [
      'a Cluster not ready is not given the train, and holds the waves above it',
      input([
        member('c1', 1, old(), { clusterNotReady: 'SecretNotFound: Secret "c1-kubeconfig" not found' }),
        member('c2', 2, old()),
      ]),
      'ClusterNotReady',
      'revision rev2 holds at wave 1: member set-c1 (cluster c1): Cluster c1 is not ready: SecretNotFound: Secret "c1-kubeconfig" not found',
      { c1: 'Stalled', c2: 'Succeeded' },
      [],
    ],
    [
      'a Cluster not ready before its member Release exists: the hold names the Release it will have',
      input([
        member('c1', 1, undefined, { clusterNotReady: 'SecretNotFound: Secret "c1-kubeconfig" not found' }),
        member('c2', 2, old()),
      ]),
      'ClusterNotReady',
      'revision rev2 holds at wave 1: member set-c1 (cluster c1): Cluster c1 is not ready: SecretNotFound: Secret "c1-kubeconfig" not found',
      { c1: 'Stalled', c2: 'Succeeded' },
      [],
    ],
    [
      'its Release reporting ClusterNotReady is a cluster hold too',
      input(
        [
          member(
            'c1',
            1,
            release(R, 'Progressing', {
              blocked: { reason: 'ClusterNotReady', message: 'Cluster "c1": unreachable' },
            }),
          ),
        ],
        { priorTrain: progressing },
      ),
      'ClusterNotReady',
      'revision rev2 holds at wave 1: member set-c1 (cluster c1): its Release cannot go on: ClusterNotReady: Cluster "c1": unreachable',
      { c1: 'Stalled' },
      [],
    ],
    [
      'the cause fixed: the member goes on, the next wave starts (no hold)',
      input([member('c1', 1, release(R, 'Succeeded')), member('c2', 2, old())], { priorTrain: progressing }),
      undefined,
      undefined,
      { c1: 'Succeeded', c2: 'Progressing' },
      [{ kind: 'apply', cluster: 'c2', which: 'train' }],
    ],
    [
      'a Cluster ready again is given the train',
      input([member('c1', 1, old()), member('c2', 2, old())]),
      undefined,
      undefined,
      { c1: 'Progressing', c2: 'Succeeded' },
      [{ kind: 'apply', cluster: 'c1', which: 'train' }],
    ],
    [
      'two members of a wave stalled: the first is named, the count of the others said',
      input([member('a', 1, dryRun), member('b', 1, dryRun)], { priorTrain: progressing }),
      'MemberStalled',
      'revision rev2 holds at wave 1: member set-a (cluster a): its Release cannot go on: DryRunFailed: ConfigMap shop/web: data.x: Invalid value (and 1 more)',
      { a: 'Stalled', b: 'Stalled' },
      [],
    ],
    [
      'a failed rollout still stops the train (no hold)',
      input([member('c1', 1, release(R, 'Failed', { blocked: { reason: 'RolloutFailed', message: 'x' } }))], {
        priorTrain: progressing,
        fleetRollback: false,
      }),
      undefined,
      undefined,
      { c1: 'Failed' },
      [],
    ],
    [
      'a member of a higher wave stalled on an old train does not hold a wave that has not reached it',
      input(
        [
          member('c1', 1, release(R, 'Progressing')),
          member('c2', 2, old(), { clusterNotReady: 'Unreachable: timed out' }),
        ],
        {
          priorTrain: progressing,
        },
      ),
      undefined,
      undefined,
      { c1: 'Progressing', c2: 'Succeeded' },
      [],
    ],
  ];
  for (const [what, inp, reason, message, want, actions] of cases) {
    const plan = planFleet(inp);
    assert.equal(plan.hold?.reason, reason, what);
    assert.equal(plan.hold?.message, message, what);
    assert.deepEqual(states(plan.members), want, what);
    assert.deepEqual(plan.actions, actions, what);
    if (plan.hold !== undefined) assert.equal(plan.message, plan.hold.message.slice(0, 256), what);
  }
});

test('planFleet: per-wave verification and bake, the hold and the message naming wave, cluster and check', () => {
  const verifying = (reason: string, message: string) =>
    release(R, 'Progressing', { verified: { reason, message } });
  const running = 'verifying: 0 of 1 checks passed; running: canary-errors';
  const inconclusive =
    'verification inconclusive, waiting for a person (convoy approve or convoy rollback): canary-errors: 3 inconclusive measurements in a row';
  // wave 1 Succeeded at 04:59:50 (release()): NOW is 10 s later.
  const succeeded = member('c1', 1, release(R, 'Succeeded'));
  const cases: ReadonlyArray<
    readonly [
      name: string,
      given: PlanInput,
      actions: FleetAction[],
      hold: string | undefined,
      message: RegExp,
      c1Row: RegExp | undefined,
    ]
  > = [
    [
      "wave 1's checks run: wave 2 waits, the set's message names the wave, the cluster and the check",
      input([member('c1', 1, verifying('Verifying', running)), member('c2', 2, old())], {
        priorTrain: progressing,
      }),
      [],
      undefined,
      /^revision rev2: 0\/2 clusters; wave 1: c1 verifying: 0 of 1 checks passed; running: canary-errors$/,
      /^verifying: 0 of 1 checks passed; running: canary-errors$/,
    ],
    [
      "wave 1's checks are inconclusive: held for a person, naming wave, member, cluster and check",
      input([member('c1', 1, verifying('VerificationInconclusive', inconclusive)), member('c2', 2, old())], {
        priorTrain: progressing,
      }),
      [],
      'VerificationInconclusive',
      /^revision rev2 holds at wave 1: member set-c1 \(cluster c1\): verification inconclusive, waiting for a person .*: canary-errors: /,
      /^member set-c1 \(cluster c1\): verification inconclusive/,
    ],
    [
      "wave 1's own bake (60 s) outlasts strategy.soak (5 s): wave 2 waits for it",
      input([succeeded, member('c2', 2, old())], {
        priorTrain: progressing,
        soakMs: 5_000,
        waveSoakMs: new Map([[1, 60_000]]),
      }),
      [],
      undefined,
      /wave 1 soaks until 2026-12-02T05:00:50/,
      undefined,
    ],
    [
      "wave 1's own bake (5 s) is shorter than strategy.soak (60 s): wave 2 starts",
      input([succeeded, member('c2', 2, old())], {
        priorTrain: progressing,
        soakMs: 60_000,
        waveSoakMs: new Map([[1, 5_000]]),
      }),
      [{ kind: 'apply', cluster: 'c2', which: 'train' }],
      undefined,
      /^revision rev2: 1\/2 clusters; wave 2: c2 Progressing$/,
      undefined,
    ],
    [
      "another wave's bake does not apply to wave 1",
      input([succeeded, member('c2', 2, old())], {
        priorTrain: progressing,
        waveSoakMs: new Map([[2, 60_000]]),
      }),
      [{ kind: 'apply', cluster: 'c2', which: 'train' }],
      undefined,
      /^revision rev2: 1\/2 clusters; wave 2: c2 Progressing$/,
      undefined,
    ],
  ];
  for (const [name, given, actions, hold, message, c1Row] of cases) {
    const plan = planFleet(given);
    assert.deepEqual(plan.actions, actions, name);
    assert.equal(plan.hold?.reason, hold, name);
    assert.match(plan.hold?.message ?? plan.message, message, name);
    const row = plan.members.find((m) => m.cluster === 'c1');
    if (c1Row !== undefined) assert.match(row?.message ?? '', c1Row, name);
  }
});
