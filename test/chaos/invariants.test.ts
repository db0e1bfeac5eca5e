// The chaos invariants over hand-made records (no cluster): a record of a run that went right breaks none,
// and each way a run can go wrong — among them the faults listed in docs/design.md#fault-model — is named by the check it breaks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2, R3 } from '../../src/api/testsupport.ts';
import type { Release, RenderRecord, RolloutStatus } from '../../src/api/types.ts';
import { hookWorkloadName } from '../../src/controller/release/decide/hooks/index.ts';
import { checkExits, checkRelease, type Invariant, type ReleaseRecord } from './invariants.ts';
import { appliedObjects, expectedLive, HOOK } from './scenario.ts';
import type { Snapshot } from './watch.ts';

const stamp = (renderRef: string): RenderRecord => ({
  renderRef,
  revision: renderRef.slice(7, 19),
  time: '2026-12-01T21:00:00Z',
});
const ro = (state: RolloutStatus['state'], renderRef: string): RolloutStatus => ({ state, renderRef });
const snap = (
  rollout: RolloutStatus | undefined,
  lastHealthy?: string,
  lastSuccessful?: string,
): Snapshot => ({
  at: 0,
  rollout,
  lastHealthy: lastHealthy === undefined ? undefined : stamp(lastHealthy),
  lastSuccessful: lastSuccessful === undefined ? undefined : stamp(lastSuccessful),
});

const goodSnapshots: Snapshot[] = [
  snap(undefined),
  snap(ro('Progressing', R1)),
  snap(ro('Succeeded', R1), R1, R1),
  snap(ro('Progressing', R2), R1, R1),
  snap(ro('Succeeded', R2), R2, R2),
  snap(ro('Progressing', R3), R2, R2),
  snap(ro('RolledBack', R3), R2, R2),
];
/** The final status when render 3 ended in `state`, `healthy` the last healthy and successful render. */
const endedStatus = (state: RolloutStatus['state'], healthy: string) =>
  ({
    status: { rollout: ro(state, R3), lastHealthy: stamp(healthy), lastSuccessful: stamp(healthy) },
  }) as Release;
const event = (state: string, ref: string) => ({
  reason: `Rollout${state}`,
  message: `rollout … → ${state} (sha256:${ref.slice(7, 19)}…), reason x`,
});
const run1 = { renderRef: R1, jobs: [{ uid: 'j1', pods: 1 }] };
const good: ReleaseRecord = {
  subject: 'chaos-0/app',
  refs: { 1: R1, 2: R2, 3: R3 },
  driveFailure: undefined,
  snapshots: goodSnapshots,
  final: endedStatus('RolledBack', R2),
  entries: appliedObjects(2).map((o) => ({ key: `${o.kind}/${o.name}`, renderRef: R2 })),
  live: expectedLive(2, R2),
  events: [
    event('Progressing', R1),
    event('Succeeded', R1),
    event('Progressing', R2),
    event('Succeeded', R2),
    event('Progressing', R3),
    event('RolledBack', R3),
  ],
  hookRuns: [run1, { renderRef: R2, jobs: [{ uid: 'j2', pods: 1 }] }],
};

const broken = (r: ReleaseRecord): Invariant[] => [...new Set(checkRelease(r).map((v) => v.invariant))];

test('a run that went right breaks no invariant', () => {
  assert.deepEqual(checkRelease(good), []);
  // the API returns a ConfigMap's keys sorted: their order is no difference
  const sorted = good.live.map((o) =>
    o.name === 'config' ? { ...o, data: { step: 'render 2', version: '2' } } : o,
  );
  assert.deepEqual(checkRelease({ ...good, live: sorted }), []);
  // a relist may hide a state: Progressing(R2) unseen is no violation
  const skipped = goodSnapshots.filter((_, i) => i !== 3);
  assert.deepEqual(
    checkRelease({ ...good, snapshots: skipped, events: good.events.filter((_, i) => i !== 2) }),
    [],
  );
});

test('each way a run can go wrong breaks its invariant', () => {
  const withSnapshot = (i: number, s: Snapshot) => goodSnapshots.map((x, j) => (j === i ? s : x));
  // render 3 ended otherwise than in the good run: its last snapshot and the final status agree
  const r3Ended = (state: RolloutStatus['state'], healthy: string) => ({
    snapshots: withSnapshot(6, snap(ro(state, R3), healthy, healthy)),
    final: endedStatus(state, healthy),
  });
  const rows: [string, ReleaseRecord, Invariant[]][] = [
    [
      'Succeeded(R2) written with lastHealthy still R1',
      { ...good, snapshots: withSnapshot(4, snap(ro('Succeeded', R2), R1, R2)) },
      ['lastHealthy on Succeeded'],
    ],
    [
      'R3 rolled back to render 1',
      {
        ...good,
        ...r3Ended('RolledBack', R1),
        live: expectedLive(1, R1),
        entries: appliedObjects(1).map((o) => ({ key: `${o.kind}/${o.name}`, renderRef: R1 })),
      },
      ['terminal state', 'live objects', 'transitions'],
    ],
    [
      'R3 Failed "no render has been healthy yet"',
      {
        ...good,
        ...r3Ended('Failed', R2),
        events: [...good.events.slice(0, 5), event('Failed', R3)],
        driveFailure: 'render 3 ended Failed, not RolledBack',
      },
      ['terminal state', 'transitions'],
    ],
    [
      'R2 rolled back',
      { ...good, snapshots: withSnapshot(4, snap(ro('RolledBack', R2), R1, R1)) },
      ['transitions', 'events'],
    ],
    [
      'an object pruned by render 2 is live again',
      { ...good, live: [...good.live, { kind: 'ConfigMap', name: 'only-r1', data: { step: '1' } }] },
      ['live objects'],
    ],
    [
      'render 2 ConfigMap missing',
      { ...good, live: good.live.filter((o) => o.name !== 'only-r2') },
      ['live objects'],
    ],
    [
      'config of render 3 live',
      {
        ...good,
        live: good.live.map((o) =>
          o.name === 'config' ? { ...o, data: { version: '3', step: 'render 3' } } : o,
        ),
      },
      ['live objects'],
    ],
    [
      'render 3 pods live',
      { ...good, live: good.live.map((o) => (o.kind === 'Deployment' ? { ...o, version: 'v3' } : o)) },
      ['live objects'],
    ],
    [
      'a live object no inventory names',
      { ...good, entries: good.entries.filter((e) => e.key !== 'ConfigMap/only-r2') },
      ['live objects'],
    ],
    [
      'the hook Job of render 1 left behind',
      { ...good, live: [...good.live, { kind: 'Job', name: hookWorkloadName(HOOK, R1) }] },
      ['live objects'],
    ],
    [
      'the hook of render 2 ran twice',
      {
        ...good,
        hookRuns: [
          run1,
          {
            renderRef: R2,
            jobs: [
              { uid: 'j2', pods: 1 },
              { uid: 'j3', pods: 1 },
            ],
          },
        ],
      },
      ['hook runs'],
    ],
    [
      'the hook ran for render 3',
      { ...good, hookRuns: [...good.hookRuns, { renderRef: R3, jobs: [{ uid: 'j4', pods: 1 }] }] },
      ['hook runs'],
    ],
    ['the hook of render 1 never ran', { ...good, hookRuns: good.hookRuns.slice(1) }, ['hook runs']],
    ['the RolledBack Event lost', { ...good, events: good.events.slice(0, 5) }, ['events']],
    [
      'R2 rolled back by its verification while Prometheus was down',
      {
        ...good,
        snapshots: withSnapshot(4, snap({ ...ro('RolledBack', R2), reason: 'VerificationFailed' }, R1, R1)),
        events: [...good.events, { reason: 'VerificationFailed', message: 'error-rate: …' }],
      },
      ['transitions', 'events', 'verification'],
    ],
    [
      'a VerificationFailed Event alone (its status lost to a relist)',
      { ...good, events: [...good.events, { reason: 'VerificationFailed', message: 'error-rate: …' }] },
      ['verification'],
    ],
    [
      'one Event for two transitions',
      { ...good, events: good.events.map((e, i) => (i === 3 ? event('Succeeded', R1) : e)) },
      ['events'],
    ],
  ];
  for (const [what, record, want] of rows) assert.deepEqual(broken(record).sort(), [...want].sort(), what);
});

test('an exit the suite did not cause is a violation', () => {
  assert.deepEqual(checkExits([]), []);
  assert.deepEqual(
    checkExits([{ role: 'observer', identity: 'chaos-observer-1', code: 1 }]).map((v) => v.invariant),
    ['process exits'],
  );
});
