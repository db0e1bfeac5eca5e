import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMapEntry, inventoryOf as inventoryFor, R1, R2 } from '../api/testsupport.ts';
import type { InventoryEntry, Release, ReleaseInventory, ReleaseStatus } from '../api/types.ts';
import {
  defaultTimeoutMs,
  outcome,
  progress,
  progressLine,
  targetRender,
  wholeInventory,
} from './watch-view.ts';

const T = '2030-01-01T00:00:00Z';

function release(
  status: ReleaseStatus | undefined,
  spec: Partial<Release['spec']> = {},
  generation = 1,
): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'ns', generation },
    spec: {
      source: { inline: { manifests: 'x' } },
      healthAssessment: {},
      failurePolicy: { deadline: '5m' },
      ...spec,
    },
    ...(status === undefined ? {} : { status }),
  };
}

const annotated = (r: Release, annotations: Record<string, string>): Release => ({
  ...r,
  metadata: { ...r.metadata, annotations },
});

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason = 'R', message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
});

const rollout = (
  state: 'Progressing' | 'Succeeded' | 'Failed' | 'RolledBack',
  renderRef = R2,
  extra = {},
) => ({
  observedGeneration: 1,
  currentRender: { renderRef: R2, revision: 'rev2' },
  rollout: { state, renderRef, startedAt: T, ...extra },
  lastHealthy: { renderRef: R1, revision: 'rev1', time: T },
});

/** No failurePolicy, so no rollout: applied and Synced, with the Healthy condition given. */
const noRollout = (healthy: ReturnType<typeof cond>) =>
  release(
    {
      observedGeneration: 1,
      currentRender: { renderRef: R2, revision: 'r' },
      lastAttempted: { renderRef: R2, revision: 'r', time: T, applied: true },
      conditions: [cond('Ready', 'True', 'Synced'), healthy],
    },
    { failurePolicy: undefined },
  );

test('outcome: the rollout of the followed render decides', () => {
  const cases: [string, Release, string | undefined, { kind: string; exitCode?: number; text: RegExp }][] = [
    ['no status yet', release(undefined), undefined, { kind: 'continue', text: /observe generation 1/ }],
    [
      'status of an older generation',
      release(rollout('Succeeded'), {}, 2),
      undefined,
      { kind: 'continue', text: /generation 2/ },
    ],
    [
      'progressing',
      release(rollout('Progressing')),
      undefined,
      { kind: 'continue', text: /rollout of sha256:2222/ },
    ],
    ['succeeded', release(rollout('Succeeded')), undefined, { kind: 'done', exitCode: 0, text: /Succeeded/ }],
    [
      'failed',
      release(rollout('Failed', R2, { reason: 'Unhealthy', message: 'web Degraded' })),
      undefined,
      { kind: 'done', exitCode: 1, text: /Failed: Unhealthy: web Degraded/ },
    ],
    [
      'rolled back',
      release(rollout('RolledBack')),
      undefined,
      { kind: 'done', exitCode: 1, text: new RegExp(`RolledBack to ${R1}`) },
    ],
    [
      'a succeeded rollout of an older render is not the end',
      release({ ...rollout('Succeeded', R1) }),
      undefined,
      { kind: 'continue', text: /rollout of sha256:2222.* to start/ },
    ],
    [
      '--render names the render to wait for',
      release(rollout('Succeeded', R2)),
      R1,
      { kind: 'continue', text: /sha256:1111/ },
    ],
    [
      'stalled ends with failure',
      release({ ...rollout('Progressing'), conditions: [cond('Stalled', 'True', 'InvalidSpec', 'bad')] }),
      undefined,
      { kind: 'done', exitCode: 1, text: /Stalled \(InvalidSpec\): bad — a retry cannot fix this/ },
    ],
    [
      'a Ready=False that is not progress needs a person (DryRunFailed, not Stalled)',
      release(
        {
          observedGeneration: 1,
          currentRender: { renderRef: R2, revision: 'r' },
          lastAttempted: { renderRef: R2, revision: 'r', time: T, applied: false },
          conditions: [cond('Ready', 'False', 'DryRunFailed', 'ConfigMap hello: a namespace is required')],
        },
        { failurePolicy: undefined },
      ),
      undefined,
      {
        kind: 'done',
        exitCode: 1,
        text: /^needs attention: Ready is False \(DryRunFailed\): ConfigMap hello: a namespace is required$/,
      },
    ],
    [
      'a failure before any render (SourceFailed) ends a watch of the current render',
      release({
        observedGeneration: 1,
        conditions: [cond('Ready', 'False', 'SourceFailed', 'no such branch')],
      }),
      undefined,
      { kind: 'done', exitCode: 1, text: /SourceFailed\): no such branch/ },
    ],
    [
      '…but not a watch of another render, which may still come',
      release({ ...rollout('Succeeded', R2), conditions: [cond('Ready', 'False', 'SourceFailed', 'x')] }),
      R1,
      { kind: 'continue', text: /sha256:1111/ },
    ],
    [
      'waiting for approval needs a person',
      release({
        ...rollout('Progressing'),
        conditions: [cond('Ready', 'False', 'WaitingForApproval', 'approve')],
      }),
      undefined,
      { kind: 'done', exitCode: 1, text: /WaitingForApproval/ },
    ],
    [
      '…unless the render was just approved',
      annotated(
        release({
          ...rollout('Progressing'),
          conditions: [cond('Ready', 'False', 'WaitingForApproval', 'a')],
        }),
        { 'convoy.kumodo.io/approved-render': R2 },
      ),
      undefined,
      { kind: 'continue', text: /rollout of sha256:2222/ },
    ],
    [
      'a pending forced sync is waited for',
      annotated(
        release({ ...rollout('Progressing'), conditions: [cond('Ready', 'False', 'ApplyFailed', 'a')] }),
        { 'convoy.kumodo.io/force-sync-at': T },
      ),
      undefined,
      { kind: 'continue', text: /rollout of sha256:2222/ },
    ],
    [
      'progress reasons do not end the watch',
      release({
        ...rollout('Progressing'),
        conditions: [cond('Ready', 'False', 'WaitingForWaveHealth', 'w')],
      }),
      undefined,
      { kind: 'continue', text: /rollout/ },
    ],
    [
      'a suspended Release ends the watch and says how to resume',
      release(rollout('Progressing'), { suspend: true }),
      undefined,
      { kind: 'done', exitCode: 1, text: /suspended .*convoy resume web/ },
    ],
    [
      'no rollout configured: applied and Healthy is success',
      noRollout(cond('Healthy', 'True', 'Healthy')),
      undefined,
      { kind: 'done', exitCode: 0, text: /applied and Healthy/ },
    ],
    [
      'no rollout configured: not Healthy yet',
      noRollout(cond('Healthy', 'Unknown', 'Progressing')),
      undefined,
      { kind: 'continue', text: /to be Healthy/ },
    ],
    [
      'pinned: no rollout, Ready and Healthy is success',
      release(
        {
          ...rollout('Progressing'),
          lastAttempted: { renderRef: R2, revision: 'r', time: T, applied: true },
          conditions: [cond('Ready', 'True', 'Synced'), cond('Healthy', 'True', 'Healthy')],
        },
        { pin: { renderRef: R2 } },
      ),
      undefined,
      { kind: 'done', exitCode: 0, text: /applied and Healthy/ },
    ],
  ];
  for (const [name, r, wanted, want] of cases) {
    const o = outcome(r, wanted);
    assert.equal(o.kind, want.kind, name);
    if (o.kind === 'done') {
      assert.equal(o.exitCode, want.exitCode, name);
      assert.match(o.summary, want.text, name);
    } else assert.match(o.waitingFor, want.text, name);
  }
});

test('targetRender: --render, else currentRender, else the rollout', () => {
  assert.equal(targetRender(release(rollout('Succeeded', R1)), undefined), R2);
  assert.equal(targetRender(release(rollout('Succeeded', R1)), R1), R1);
  assert.equal(targetRender(release({ rollout: { state: 'Succeeded', renderRef: R1 } }), undefined), R1);
  assert.equal(targetRender(release(undefined), undefined), undefined);
});

const e = (
  name: string,
  wave: number,
  renderRef: string,
  state?: 'Healthy' | 'Progressing',
  assessed = renderRef,
): InventoryEntry =>
  configMapEntry(
    'ns',
    name,
    wave,
    renderRef,
    state === undefined ? {} : { state, assessedRenderRef: assessed },
  );

const inventoryOf = (entries: InventoryEntry[]): ReleaseInventory => inventoryFor('ns', 'web', entries);

test('progress counts waves, Healthy objects and hooks of the followed render only', () => {
  const r = release({
    ...rollout('Progressing'),
    waves: [
      { renderRef: R2, wave: 0, startedAt: T, completedAt: T },
      { renderRef: R2, wave: 1, startedAt: T },
      { renderRef: R1, wave: 5, startedAt: T },
    ],
  });
  const inv = inventoryFor(
    'ns',
    'web',
    [
      e('a', 0, R2, 'Healthy'),
      e('b', 0, R2, 'Healthy', R1), // assessed for the old render: not counted
      e('c', 1, R2, 'Progressing'),
      e('d', 1, R2),
      e('old', 5, R1, 'Healthy'),
    ],
    [
      { name: 'migrate', phase: 'PreSync', renderRef: R2, state: 'Succeeded' },
      { name: 'smoke', phase: 'PostSync', renderRef: R2, state: 'Running' },
      { name: 'notify', phase: 'SyncFail', renderRef: R2 },
      { name: 'old', phase: 'PreSync', renderRef: R1, state: 'Failed' },
    ],
  );
  const p = progress(r, inv);
  assert.deepEqual(
    [p.renderRef, p.state, p.waves.done, p.waves.total, p.waves.current, p.objects.healthy, p.objects.total],
    [R2, 'Progressing', 1, 2, 1, 1, 4],
  );
  assert.deepEqual([p.hooks.succeeded, p.hooks.running, p.hooks.failed], [1, 2, 0]);
  assert.equal(
    progressLine(p, false),
    'Progressing sha256:222222222222 · waves 1/2 done (at wave 1) · objects 1/4 Healthy · hooks 1 Succeeded, 2 Running',
  );
  const done = progress(
    release(rollout('RolledBack', R2, { reason: 'DeadlineExceeded', message: 'c Progressing' })),
    inventoryOf([e('a', 0, R1, 'Healthy')]),
  );
  assert.equal(
    progressLine(done, false),
    'RolledBack sha256:222222222222 · waves 0/0 done · objects 1/1 Healthy (of sha256:111111111111) · DeadlineExceeded: c Progressing',
  );
});

test('defaultTimeoutMs: the rollout deadline plus two minutes, else fifteen minutes', () => {
  assert.equal(defaultTimeoutMs(release(undefined)), 7 * 60_000);
  assert.equal(defaultTimeoutMs(release(undefined, { failurePolicy: undefined })), 15 * 60_000);
});

test('progress without a rollout shows the Ready reason', () => {
  const r = release(
    {
      observedGeneration: 1,
      currentRender: { renderRef: R2, revision: 'r' },
      conditions: [cond('Ready', 'False', 'WaitingForApproval', 'approve sha256:2222')],
    },
    { failurePolicy: undefined },
  );
  const p = progress(r, undefined);
  assert.equal(p.state, 'WaitingForApproval');
  assert.equal(p.message, 'approve sha256:2222');
});

test('progress counts the objects of every inventory part, not only part 0', () => {
  const r = release(rollout('Progressing'));
  const part = (name: string, of: string, entries: InventoryEntry[]): ReleaseInventory => ({
    ...inventoryOf(entries),
    metadata: { name, namespace: 'ns', labels: { 'convoy.kumodo.io/inventory-of': of } },
  });
  const head = inventoryOf([e('a', 0, R2, 'Healthy'), e('b', 0, R2)]);
  const parts = [
    part('web-part-1', 'web', [e('c', 0, R2, 'Healthy'), e('d', 0, R2, 'Healthy')]),
    part('web-part-2', 'web', [e('e', 0, R2, 'Progressing')]),
    part('other-part-1', 'other', [e('x', 0, R2, 'Healthy')]), // another Release's part
  ];
  const cases: [string, ReleaseInventory | undefined, number, number][] = [
    ['part 0 alone', wholeInventory('ns', 'web', head, []), 1, 2],
    ['part 0 and its parts', wholeInventory('ns', 'web', head, parts), 3, 5],
    ['parts without part 0 yet', wholeInventory('ns', 'web', undefined, parts), 2, 3],
    ['no inventory', wholeInventory('ns', 'web', undefined, []), 0, 0],
  ];
  for (const [what, inv, healthy, total] of cases) {
    const p = progress(r, inv);
    assert.deepEqual([p.objects.healthy, p.objects.total], [healthy, total], what);
  }
});
