// The rows and Release views of the UI: the rollout figures are progressSummary's (the same as watch,
// status and the API), a rollback shows its reason and its deadline, a Manual render not applied yet
// awaits approval, drift lists the drifted objects with their message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_REQUEST_ANNOTATIONS } from '../api/constants.ts';
import { configMapEntry, inventoryOf, R1, R2, R3 } from '../api/testsupport.ts';
import type { Release, ReleaseStatus } from '../api/types.ts';
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

test('who or what triggered each render: rollback, pin, forced and requested syncs, a source change', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const history = [
    {
      renderRef: R1,
      revision: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      appliedAt: at(0),
      result: 'Succeeded' as const,
    },
    {
      renderRef: R2,
      revision: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      appliedAt: at(1),
      result: 'RolledBack' as const,
      reason: 'DeadlineExceeded',
    },
    { renderRef: R1, revision: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', appliedAt: at(2) },
    { renderRef: R3, revision: 'cccccccccccccccccccccccccccccccccccccccc', appliedAt: at(4) },
  ];
  const triggers = (r: Release) =>
    timeline(r)
      .filter((t) => t.kind === 'render')
      .map((t) => `${t.trigger?.kind}: ${t.trigger?.text}`)
      .reverse();
  const git = { git: { url: 'https://git.example/app.git' } };
  const plain = release({ history }, { source: git });
  assert.deepEqual(triggers(plain), [
    'first: first render (revision aaaaaaaaaaaa)',
    'source: new commit bbbbbbbbbbbb, found by the source poll or a push',
    // The same render again (a revert of the source): a source change, not a rollback.
    'source: new commit aaaaaaaaaaaa, found by the source poll or a push',
    'source: new commit cccccccccccc, found by the source poll or a push',
  ]);
  const requested = {
    ...release({ history }, { source: git }),
    metadata: { name: 'web', namespace: 'ns', annotations: { [sync.value]: at(3) } },
  };
  assert.equal(
    triggers(requested)[3],
    'requested: sync requested at 2030-01-01T00:03:00.000Z (a push webhook, convoy sync or this UI)',
  );
  const forced = release({ history, lastHandledForceSyncAt: at(3) }, { source: git });
  assert.equal(triggers(forced)[3], 'forced: forced sync requested at 2030-01-01T00:03:00.000Z');
  const pinned = release({ history: history.slice(0, 3) }, { source: git, pin: { renderRef: R1 } });
  // The older entry of the pinned render is not the pin.
  assert.deepEqual(triggers(pinned).slice(0, 1), ['first: first render (revision aaaaaaaaaaaa)']);
  const pinnedLater = release(
    { history: [...history, { ...history[0], appliedAt: at(5) }] as typeof history },
    {
      source: git,
      pin: { renderRef: R1 },
    },
  );
  assert.equal(
    triggers(pinnedLater)[4],
    'pin: pinned by a user (spec.pin: convoy pin or rollback, or this UI)',
  );
  const inline = release({
    history: [history[0], { ...history[0], renderRef: R2, appliedAt: at(1) }] as typeof history,
  });
  assert.equal(triggers(inline)[1], 'rerender: same revision rendered anew (spec or render inputs changed)');
});

test('a RolledBack rollout says it was the automatic rollback, with its reason and the render it went back to', () => {
  const ro = timeline(rolledBack).find((t) => t.kind === 'rollout');
  assert.deepEqual(ro?.trigger, {
    kind: 'rollback',
    text: `automatic rollback (failurePolicy) after ${rolledBack.status?.rollout?.reason}, to the last healthy revision good`,
  });
});

test('who asked: the requester the API wrote beside each request, in the trigger and the timeline', () => {
  const at = (m: number) => `2030-01-01T00:0${m}:00.000Z`;
  const history = [
    { renderRef: R1, revision: 'a'.repeat(40), appliedAt: at(0), result: 'Succeeded' as const },
    { renderRef: R2, revision: 'a'.repeat(40), appliedAt: at(2) },
  ];
  const withAnnotations = (annotations: Record<string, string>, status: Partial<ReleaseStatus> = {}) => ({
    ...release({ history, ...status }, { source: { git: { url: 'https://git.example/app.git' } } }),
    metadata: { name: 'web', namespace: 'ns', annotations },
  });
  /** A request's annotation and, when given, the requester beside it. */
  const stamp = (a: { value: string; by: string }, value: string, by?: string) => ({
    [a.value]: value,
    ...(by === undefined ? {} : { [a.by]: by }),
  });
  const OBSERVER = 'user:system:serviceaccount:convoy-system:convoy-observer';
  const rows: [string, Record<string, string>, Partial<ReleaseStatus>, string, string[]][] = [
    [
      'a user asked',
      { [sync.value]: at(1), [sync.by]: 'user:alice' },
      {},
      'requested: sync requested by alice at 2030-01-01T00:01:00.000Z',
      ['sync requested by alice'],
    ],
    [
      'a push asked',
      { [sync.value]: at(1), [sync.by]: 'receiver:ns/github' },
      {},
      'requested: sync requested by a push (Receiver ns/github) at 2030-01-01T00:01:00.000Z',
      ['sync requested by a push (Receiver ns/github)'],
    ],
    [
      'no requester recorded (an older convoy, convoy sync --direct): where it may have come from',
      { [sync.value]: at(1) },
      {},
      'requested: sync requested at 2030-01-01T00:01:00.000Z (a push webhook, convoy sync or this UI)',
      ['sync requested'],
    ],
    [
      'a value convoy did not write names nobody',
      { [sync.value]: at(1), [sync.by]: 'mallory' },
      {},
      'requested: sync requested at 2030-01-01T00:01:00.000Z (a push webhook, convoy sync or this UI)',
      ['sync requested'],
    ],
    [
      'a forced sync by bob, the later plain request by the observer',
      { ...stamp(sync, at(3), OBSERVER), ...stamp(force, at(1), 'user:bob') },
      {},
      'forced: forced sync requested by bob at 2030-01-01T00:01:00.000Z',
      ['forced sync requested by bob'],
    ],
    [
      'a forced sync known only from the status: its requester is not claimed',
      { [force.by]: 'user:bob' },
      { lastHandledForceSyncAt: at(1) },
      'forced: forced sync requested at 2030-01-01T00:01:00.000Z',
      [],
    ],
    [
      'an approval by carol',
      { ...stamp(sync, at(1), 'user:carol'), ...stamp(approve, R2, 'user:carol') },
      {},
      'requested: approved by carol at 2030-01-01T00:01:00.000Z',
      ['sync requested by carol', 'render approved by carol'],
    ],
    [
      'an approval by carol, then a wake-up from the observer restamps sync-requested-at',
      { ...stamp(sync, at(9), OBSERVER), ...stamp(approve, R2, 'user:carol') },
      {},
      'requested: approved by carol',
      ['render approved by carol'],
    ],
    [
      "the observer's wake-up between two renders: no one asked, the render is the source's change",
      stamp(sync, at(1), OBSERVER),
      {},
      'rerender: same revision rendered anew (spec or render inputs changed)',
      [],
    ],
    [
      'a ServiceAccount named like the observer in a name only is a user',
      stamp(sync, at(1), 'user:system:serviceaccount:shop:convoy-observer-fake'),
      {},
      'requested: sync requested by system:serviceaccount:shop:convoy-observer-fake at 2030-01-01T00:01:00.000Z',
      ['sync requested by system:serviceaccount:shop:convoy-observer-fake'],
    ],
  ];
  for (const [name, annotations, status, trigger, titles] of rows) {
    const items = timeline(withAnnotations(annotations, status));
    const r2 = items.find((t) => t.kind === 'render' && t.renderRef === R2);
    assert.equal(`${r2?.trigger?.kind}: ${r2?.trigger?.text}`, trigger, name);
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
  // A later request changes no render's result, nor the triggers history alone decides.
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
