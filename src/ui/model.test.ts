// The rows and Release views of the UI: the rollout figures are progressSummary's (the same as watch,
// status and the API), a rollback shows its reason and its deadline, a Manual render not applied yet
// awaits approval, drift lists the drifted objects with their message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_REQUEST_ANNOTATIONS } from '../api/constants.ts';
import { configMapEntry, inventoryOf, R1, R2, R3 } from '../api/testsupport.ts';
import type { HistoryEntry, Release, ReleaseStatus } from '../api/types.ts';
import { progressSummary } from '../server/progress.ts';
import { driftView, releaseDetail, releaseRow, releaseSetRow, rolloutView, timeline } from './model.ts';

const { sync, approve, force } = API_REQUEST_ANNOTATIONS;
const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-01T00:01:00.000Z';

const release = (status: ReleaseStatus, spec: Partial<Release['spec']> = {}): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns', creationTimestamp: T0 },
  spec: { source: { inline: { manifests: 'x' } }, failurePolicy: { deadline: '5m' }, ...spec },
  status,
});

const inv = inventoryOf(
  'ns',
  'web',
  [
    configMapEntry('ns', 'a', 0, R2, { state: 'Healthy', assessedRenderRef: R2 }),
    {
      group: 'apps',
      kind: 'Deployment',
      namespace: 'ns',
      name: 'b',
      wave: 1,
      renderRef: R2,
      state: 'Progressing',
      message: 'available 0 of 1',
      drifted: true,
      driftMessage: 'spec.replicas: 3 in the render, 1 live',
    },
  ],
  [],
);

const rolledBack = release({
  currentRender: { renderRef: R2, revision: 'bad' },
  lastHealthy: { renderRef: R1, revision: 'good', time: T0 },
  rollout: {
    state: 'RolledBack',
    renderRef: R2,
    startedAt: T0,
    finishedAt: T1,
    reason: 'DeadlineExceeded',
    message: 'Deployment b not healthy',
  },
  history: [
    { renderRef: R1, revision: 'good', appliedAt: '2029-12-31T00:00:00.000Z', result: 'Succeeded' },
    { renderRef: R2, revision: 'bad', appliedAt: T0, result: 'RolledBack', reason: 'DeadlineExceeded' },
  ],
  conditions: [
    { type: 'Ready', status: 'False', reason: 'RolledBack', message: 'rolled back', lastTransitionTime: T1 },
  ],
});

test('a row carries the figures of progressSummary, the one state and the REVISION column', () => {
  const r = release({
    currentRender: { renderRef: R2, revision: 'abcdef0123456789abcdef0123456789abcdef01' },
    rollout: { state: 'Progressing', renderRef: R2, startedAt: T0 },
    waves: [
      { renderRef: R2, wave: 0, startedAt: T0, completedAt: T0 },
      { renderRef: R2, wave: 1, startedAt: T0 },
    ],
    conditions: [{ type: 'Ready', status: 'True', reason: 'Synced', message: '', lastTransitionTime: T0 }],
  });
  const p = progressSummary(r, inv);
  const row = releaseRow(r, inv);
  assert.equal(row.key, 'ns/web');
  assert.equal(row.rollout, p.state);
  assert.deepEqual(row.waves, { done: p.waves.done, total: p.waves.total });
  assert.deepEqual(row.objects, { healthy: 1, total: 2 });
  // releaseState's one state, as convoy get shows it
  assert.deepEqual([row.state, row.tone, row.health], ['Progressing', 'busy', 'NotAssessed']);
  assert.equal(row.changedAt, T0);
  assert.equal(row.revision, 'abcdef012345');
  assert.equal(releaseRow({ ...r, status: { ...r.status, revision: 'main@abc' } }, inv).revision, 'main@abc');
});

test('a rollback is in the timeline with its reason, message and deadline (startedAt + failurePolicy.deadline)', () => {
  const items = timeline(rolledBack);
  const ro = items.find((t) => t.kind === 'rollout');
  assert.equal(ro?.title, 'rolled back');
  assert.equal(ro?.reason, 'DeadlineExceeded');
  assert.equal(ro?.message, 'Deployment b not healthy');
  assert.equal(ro?.deadline, '2030-01-01T00:05:00.000Z');
  assert.deepEqual(
    items.filter((t) => t.kind === 'render').map((t) => [t.revision, t.result]),
    [
      ['bad', 'RolledBack'],
      ['good', 'Succeeded'],
    ],
    'newest first',
  );
  assert.equal(
    timeline(release({ ...rolledBack.status }, { failurePolicy: { deadline: 'soon' } })).find(
      (t) => t.kind === 'rollout',
    )?.deadline,
    undefined,
  );
});

test('a Manual render not applied awaits approval; once applied it does not', () => {
  const waiting = release(
    {
      currentRender: { renderRef: R2, revision: 'b' },
      lastSuccessful: { renderRef: R1, revision: 'a', time: T0 },
    },
    { syncPolicy: { mode: 'Manual' } },
  );
  assert.equal(releaseDetail(waiting, undefined).awaitingApproval, true);
  const applied = release(
    {
      currentRender: { renderRef: R2, revision: 'b' },
      lastSuccessful: { renderRef: R2, revision: 'b', time: T0 },
    },
    { syncPolicy: { mode: 'Manual' } },
  );
  assert.equal(releaseDetail(applied, undefined).awaitingApproval, false);
  assert.equal(
    releaseDetail({ ...waiting, spec: { ...waiting.spec, syncPolicy: { mode: 'Auto' } } }, undefined)
      .awaitingApproval,
    false,
  );
});

test('the detail shows the objects with their health and message, and the drifted ones', () => {
  const d = releaseDetail(rolledBack, inv);
  assert.deepEqual(
    d.health.entries.map((e) => [e.kind, e.state, e.message]),
    [
      ['ConfigMap', 'Healthy', ''],
      ['Deployment', 'Progressing', 'available 0 of 1'],
    ],
  );
  assert.equal(d.lastHealthy?.renderRef, R1);
  assert.deepEqual(driftView(rolledBack, inv).objects, [
    { object: 'Deployment.apps ns/b', message: 'spec.replicas: 3 in the render, 1 live' },
  ]);
});

test('a ReleaseSet row: READY from its summary, the train with where it stopped, each member', () => {
  const row = releaseSetRow({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseSet',
    metadata: { name: 'fleet', namespace: 'ns' },
    spec: { template: { spec: { source: { inline: { manifests: 'x' } } } } } as never,
    status: {
      revision: 'r2',
      train: {
        revision: 'r2',
        id: 'r2',
        state: 'Stopped',
        wave: 1,
        startedAt: T0,
        failedCluster: 'eu',
        reason: 'MemberFailed',
      },
      clusters: [{ cluster: 'eu', wave: 1, state: 'RolledBack', release: 'fleet-eu', message: 'deadline' }],
      summary: { total: 2, succeeded: 1, progressing: 0, waiting: 0, failed: 1, paused: 0, ready: '1/2' },
    },
  });
  assert.equal(row.ready, '1/2');
  assert.deepEqual(row.train, {
    state: 'Stopped',
    revision: 'r2',
    wave: 1,
    reason: 'MemberFailed',
    failedCluster: 'eu',
  });
  assert.deepEqual(row.members, [
    { cluster: 'eu', wave: 1, state: 'RolledBack', health: '-', release: 'fleet-eu', message: 'deadline' },
  ]);
});

test('each render says the trigger recorded with it, in the words convoy history uses; none recorded: unknown', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const rev = 'a'.repeat(40);
  const rows: [HistoryEntry['trigger'], string][] = [
    [{ kind: 'Created' }, 'first: first render (revision aaaaaaaaaaaa)'],
    [{ kind: 'Source' }, 'source: new source revision aaaaaaaaaaaa'],
    [{ kind: 'Spec', generation: 4 }, 'spec: spec changed (generation 4, same revision)'],
    [{ kind: 'SyncRequest', by: 'user:alice' }, 'requested: sync requested by alice'],
    [
      { kind: 'SyncRequest', by: 'receiver:ns/github' },
      'requested: sync requested by a push (Receiver ns/github)',
    ],
    [{ kind: 'SyncRequest' }, 'requested: sync requested (the requester was not recorded)'],
    [{ kind: 'Approval', by: 'user:carol' }, 'requested: approved by carol'],
    [{ kind: 'ForcedSync', by: 'user:bob' }, 'forced: forced sync requested by bob'],
    [{ kind: 'Pin' }, 'pin: pinned by a user (spec.pin: convoy pin or rollback, or the UI)'],
    [
      { kind: 'Rollback', reason: 'DeadlineExceeded' },
      'rollback: automatic rollback (failurePolicy) after DeadlineExceeded, to the last healthy revision aaaaaaaaaaaa',
    ],
    [
      { kind: 'Resync' },
      "resync: the controller's own resync (same revision and spec: the interval, or a retry after an error)",
    ],
    [undefined, 'unknown: unknown (recorded before convoy kept what triggered a render)'],
  ];
  for (const [trigger, want] of rows) {
    const entry = {
      renderRef: R1,
      revision: rev,
      appliedAt: at(0),
      ...(trigger === undefined ? {} : { trigger }),
    };
    const t = timeline(release({ history: [entry] })).find((i) => i.kind === 'render')?.trigger;
    assert.equal(`${t?.kind}: ${t?.text}`, want, JSON.stringify(trigger));
  }
});

test('a render that never applied is in the timeline as such, at its attempt, with its failure', () => {
  const item = timeline(
    release({
      history: [
        {
          renderRef: R1,
          revision: 'v2',
          attemptedAt: T1,
          result: 'Failed',
          reason: 'DryRunFailed',
          trigger: { kind: 'Source' },
        },
      ],
    }),
  ).find((i) => i.kind === 'render');
  assert.deepEqual(
    [item?.time, item?.title, item?.result, item?.reason, item?.trigger?.kind],
    [T1, 'revision v2 not applied', 'Failed', 'DryRunFailed', 'source'],
  );
});

test("a RolledBack rollout shows the rollback's own entry: its reason and the render it went back to", () => {
  const withEntry = release({
    ...rolledBack.status,
    history: [
      ...(rolledBack.status?.history ?? []),
      {
        renderRef: R1,
        revision: 'good',
        appliedAt: T1,
        trigger: { kind: 'Rollback', reason: 'DeadlineExceeded' },
      },
    ],
  });
  const ro = timeline(withEntry).find((t) => t.kind === 'rollout');
  assert.deepEqual(ro?.trigger, {
    kind: 'rollback',
    text: 'automatic rollback (failurePolicy) after DeadlineExceeded, to the last healthy revision good',
  });
  // Rolled back by a convoy that recorded no entry for it: the render's own trigger, unknown.
  assert.equal(timeline(rolledBack).find((t) => t.kind === 'rollout')?.trigger?.kind, 'unknown');
});

test('later requests, approvals, forced syncs and pins relabel no render', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const r = release({
    history: [
      { renderRef: R1, revision: 'a'.repeat(40), appliedAt: at(0), trigger: { kind: 'Created' } },
      {
        renderRef: R2,
        revision: 'b'.repeat(40),
        appliedAt: at(2),
        trigger: { kind: 'SyncRequest', by: 'user:alice' },
      },
    ],
  });
  const renders = (x: Release) => timeline(x).filter((t) => t.kind === 'render');
  const before = renders(r);
  const later = (annotations: Record<string, string>, spec: Partial<Release['spec']> = {}) => ({
    ...r,
    spec: { ...r.spec, ...spec },
    metadata: { ...r.metadata, annotations },
  });
  const OBSERVER = 'user:system:serviceaccount:convoy-system:convoy-observer';
  const afterwards: [string, Release][] = [
    ['bob asks for a sync', later({ [sync.value]: at(5), [sync.by]: 'user:bob' })],
    ['carol approves R2', later({ [sync.value]: at(5), [approve.value]: R2, [approve.by]: 'user:carol' })],
    ['dave forces a sync', later({ [force.value]: at(5), [force.by]: 'user:dave' })],
    ['the observer wakes the controller', later({ [sync.value]: at(5), [sync.by]: OBSERVER })],
    ['someone pins R1', later({}, { pin: { renderRef: R1 } })],
  ];
  for (const [name, x] of afterwards) assert.deepEqual(renders(x), before, name);
});

test('who asked: the requester the API wrote beside the latest request, in the timeline', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const withAnnotations = (annotations: Record<string, string>) => ({
    ...release({}),
    metadata: { name: 'web', namespace: 'ns', annotations },
  });
  /** A request's annotation and, when given, the requester beside it. */
  const stamp = (a: { value: string; by: string }, value: string, by?: string) => ({
    [a.value]: value,
    ...(by === undefined ? {} : { [a.by]: by }),
  });
  const OBSERVER = 'user:system:serviceaccount:convoy-system:convoy-observer';
  const rows: [string, Record<string, string>, string[]][] = [
    ['a user asked', stamp(sync, at(1), 'user:alice'), ['sync requested by alice']],
    [
      'a push asked',
      stamp(sync, at(1), 'receiver:ns/github'),
      ['sync requested by a push (Receiver ns/github)'],
    ],
    ['no requester recorded (convoy sync --direct)', stamp(sync, at(1)), ['sync requested']],
    ['a value convoy did not write names nobody', stamp(sync, at(1), 'mallory'), ['sync requested']],
    [
      'a forced sync by bob, the later plain request by the observer',
      { ...stamp(sync, at(3), OBSERVER), ...stamp(force, at(1), 'user:bob') },
      ['forced sync requested by bob'],
    ],
    [
      'an approval by carol',
      { ...stamp(sync, at(1), 'user:carol'), ...stamp(approve, R2, 'user:carol') },
      ['sync requested by carol', 'render approved by carol'],
    ],
    [
      'a ServiceAccount named like the observer in a name only is a user',
      stamp(sync, at(1), 'user:system:serviceaccount:shop:convoy-observer-fake'),
      ['sync requested by system:serviceaccount:shop:convoy-observer-fake'],
    ],
  ];
  for (const [name, annotations, titles] of rows) {
    const items = timeline(withAnnotations(annotations));
    assert.deepEqual(
      items.filter((t) => t.kind === 'trigger').map((t) => t.title),
      titles,
      name,
    );
  }
});

test('the timeline is newest first by time, whatever the precision each writer keeps', () => {
  const r = {
    ...release({
      history: [{ renderRef: R1, revision: 'a'.repeat(40), appliedAt: '2030-01-01T00:00:20Z' }],
    }),
    metadata: { name: 'web', namespace: 'ns', annotations: { [sync.value]: '2030-01-01T00:00:20.512Z' } },
  };
  assert.deepEqual(
    timeline(r).map((t) => t.kind),
    ['trigger', 'render'],
  );
});

test("the observer's wake-ups are in the timeline as wake-ups, never as someone's request", () => {
  const items = timeline({
    ...release({}),
    metadata: {
      name: 'web',
      namespace: 'ns',
      annotations: {
        [sync.value]: T1,
        [sync.by]: 'user:system:serviceaccount:convoy-system:convoy-observer',
      },
    },
  });
  assert.deepEqual(
    items.map((t) => [t.kind, t.title]),
    [['wakeup', 'the observer woke the controller (a health edge: no one asked for a sync)']],
  );
});

test('every render applied is in the timeline once, with how it ended; one a newer render replaced is Superseded', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const history = [
    { renderRef: R1, revision: 'a'.repeat(40), appliedAt: at(0), result: 'Succeeded' as const },
    // Progressing when R3 came: its rollout never ended.
    { renderRef: R2, revision: 'b'.repeat(40), appliedAt: at(1) },
    {
      renderRef: R3,
      revision: 'c'.repeat(40),
      appliedAt: at(2),
      result: 'RolledBack' as const,
      reason: 'DeadlineExceeded',
    },
    { renderRef: R2, revision: 'b'.repeat(40), appliedAt: at(3), result: 'Failed' as const },
    // The newest, its rollout still running: no result yet.
    { renderRef: R1, revision: 'a'.repeat(40), appliedAt: at(4) },
  ];
  const r = release({
    history,
    rollout: { renderRef: R1, revision: 'a'.repeat(40), state: 'Progressing', startedAt: at(4) },
  });
  const renders = timeline(r)
    .filter((t) => t.kind === 'render')
    .reverse()
    .map((t) => [t.renderRef, t.time, t.result]);
  assert.deepEqual(renders, [
    [R1, at(0), 'Succeeded'],
    [R2, at(1), 'Superseded'],
    [R3, at(2), 'RolledBack'],
    [R2, at(3), 'Failed'],
    [R1, at(4), undefined],
  ]);
  // A later request changes no render's result.
  const before = timeline(r).filter((t) => t.kind === 'render');
  const later = timeline({
    ...r,
    metadata: { ...r.metadata, annotations: { [sync.value]: at(9), [sync.by]: 'user:alice' } },
  }).filter((t) => t.kind === 'render');
  assert.deepEqual(later, before);
});

test('rolloutView: when a Progressing rollout is judged, and what a failure then does', () => {
  const progressing = (extra: Partial<ReleaseStatus> = {}, spec: Partial<Release['spec']> = {}) =>
    rolloutView(
      release(
        {
          currentRender: { renderRef: R2, revision: 'bad' },
          lastHealthy: { renderRef: R1, revision: 'good', time: T0 },
          rollout: { state: 'Progressing', renderRef: R2, revision: 'bad', startedAt: T0 },
          ...extra,
        },
        spec,
      ),
    );
  assert.deepEqual(progressing(), {
    state: 'Progressing',
    renderRef: R2,
    revision: 'bad',
    startedAt: T0,
    deadlineAt: '2030-01-01T00:05:00.000Z',
    onFailure: { kind: 'rollback', renderRef: R1, revision: 'good' },
  });
  assert.deepEqual(progressing({}, { failurePolicy: { deadline: '5m', rollback: 'Never' } })?.onFailure, {
    kind: 'fail',
    why: 'failurePolicy.rollback is Never',
  });
  assert.deepEqual(progressing({ lastHealthy: undefined })?.onFailure, {
    kind: 'fail',
    why: 'no render was healthy before: nothing to roll back to',
  });
  // Held by a gate: no clock yet, so no deadline.
  const held = progressing({ rollout: { state: 'Progressing', renderRef: R2 } });
  assert.equal(held?.deadlineAt, undefined);
  // The rollout of another render than the current one says nothing of it.
  assert.equal(progressing({ currentRender: { renderRef: R3, revision: 'newer' } }), undefined);
});
