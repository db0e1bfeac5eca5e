import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMapEntry, deploymentEntry, inventoryOf, R1, R2, R3 } from '../api/testsupport.ts';
import type { Release } from '../api/types.ts';
import { progressSummary } from '../server/progress.ts';
import { healthResult, historyResult } from '../server/views.ts';
import { healthLines, historyLines, objectName, releaseTable, statusLines } from './views.ts';
import { progressLine } from './watch-view.ts';

const now = new Date('2030-01-01T01:00:00Z');
const o = { now, colour: false };
// a render ref as the tables show it, spelled out so the expectation does not lean on the code under test
const short = (r: string) => r.slice(0, 'sha256:'.length + 12);

function rel(name: string, ns: string, extra: Partial<Release> = {}): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name, namespace: ns, creationTimestamp: '2030-01-01T00:55:00Z', generation: 1 },
    spec: { source: { inline: { manifests: 'x' } } },
    ...extra,
  };
}

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2030-01-01T00:58:00Z',
});

const web = rel('web', 'team', {
  spec: {
    source: { git: { url: 'https://git.example/app.git', ref: { branch: 'main' }, path: 'app' } },
    cluster: { name: 'prod' },
    healthAssessment: {},
    failurePolicy: { deadline: '10m' },
  },
  status: {
    observedGeneration: 1,
    currentRender: { renderRef: R2, revision: 'abc123' },
    rollout: { state: 'Progressing', renderRef: R2, revision: 'abc123', startedAt: '2030-01-01T00:57:00Z' },
    lastHealthy: { renderRef: R1, revision: 'old999', time: '2029-12-31T01:00:00Z' },
    waves: [
      { renderRef: R2, wave: 0, startedAt: '2030-01-01T00:57:00Z', completedAt: '2030-01-01T00:58:00Z' },
      { renderRef: R2, wave: 1, startedAt: '2030-01-01T00:58:00Z' },
    ],
    history: [
      { renderRef: R1, revision: 'old999', appliedAt: '2029-12-31T00:00:00Z' },
      {
        renderRef: R2,
        revision: 'abc123',
        appliedAt: '2030-01-01T00:57:00Z',
        trigger: { kind: 'SyncRequest', by: 'user:alice' },
      },
    ],
    conditions: [
      cond('Ready', 'False', 'WaitingForWaveHealth', 'wave 1'),
      cond('Healthy', 'Unknown', 'Progressing'),
    ],
  },
});

const inv = inventoryOf(
  'team',
  'web',
  [
    configMapEntry('team', 'cfg', 0, R2, { state: 'Healthy', assessedRenderRef: R2, message: 'exists' }),
    deploymentEntry('team', 'web', 1, R2, {
      state: 'Progressing',
      assessedRenderRef: R2,
      message: 'available 1 of 3',
    }),
  ],
  [
    {
      name: 'migrate',
      phase: 'PreSync',
      kind: 'Job',
      renderRef: R2,
      workloadName: 'migrate-222222',
      createdAt: '2030-01-01T00:57:00Z',
      state: 'Succeeded',
    },
  ],
);

test('get: the one state and health of each Release, sorted, with a NAMESPACE column under -A', () => {
  const other = rel('api', 'dev');
  assert.deepEqual(releaseTable([web, other], true, o), [
    'NAMESPACE   NAME   STATE         HEALTH        REVISION   AGE   MESSAGE',
    'dev         api    Pending       -             -          5m',
    'team        web    Progressing   Progressing   abc123     5m',
  ]);
  assert.deepEqual(
    releaseTable(
      [rel('p', 'x', { spec: { source: { inline: { manifests: 'x' } }, pin: { renderRef: R1 } } })],
      false,
      o,
    ),
    [
      'NAME   STATE              HEALTH   REVISION   AGE   MESSAGE',
      'p      Pending (pinned)   -        -          5m',
    ],
  );
});

test('get: a Failed rollout is Failed (not Ready True), awaiting approval is its own state', () => {
  const status = (
    conditions: ReturnType<typeof cond>[],
    extra: Partial<NonNullable<Release['status']>> = {},
  ) => ({
    currentRender: { renderRef: R2, revision: 'abc' },
    conditions,
    ...extra,
  });
  const spec = { source: { inline: { manifests: 'x' } }, healthAssessment: {} };
  const failed = rel('failed', 'x', {
    spec,
    status: status([cond('Ready', 'True', 'Synced'), cond('Healthy', 'False', 'Degraded')], {
      rollout: { state: 'Failed', renderRef: R2, reason: 'DeadlineExceeded' },
    }),
  });
  const manual = rel('manual', 'x', {
    spec,
    status: status([cond('Ready', 'False', 'WaitingForApproval'), cond('Healthy', 'True', 'Healthy')]),
  });
  const lines = releaseTable([failed, manual], false, o);
  assert.match(lines[1] ?? '', /^failed +Failed +Degraded /);
  assert.match(lines[2] ?? '', /^manual +AwaitingApproval +Healthy /);
});

test('get: REVISION and MESSAGE are what the controller wrote for kubectl (status.revision, status.message)', () => {
  const commit = 'a'.repeat(40);
  const failing = rel('hello', 'x', {
    status: {
      currentRender: { renderRef: R1, revision: commit },
      revision: 'aaaaaaaaaaaa',
      message: 'DryRunFailed: ConfigMap hello: a namespace is required',
      conditions: [cond('Ready', 'False', 'DryRunFailed', 'x'), cond('Healthy', 'Unknown', 'Pending')],
    },
  });
  assert.deepEqual(releaseTable([failing], false, o), [
    'NAME    STATE    HEALTH   REVISION       AGE   MESSAGE',
    'hello   Failed   -        aaaaaaaaaaaa   5m    DryRunFailed: ConfigMap hello: a namespace is required',
  ]);
  // Before the controller wrote status.revision: the same shortening, not the 40 digits.
  const older = rel('old', 'x', { status: { currentRender: { renderRef: R1, revision: commit } } });
  assert.match(releaseTable([older], false, o)[1] ?? '', / aaaaaaaaaaaa /);
});

test('status: rollout, waves with Healthy/total, hooks and conditions', () => {
  const lines = statusLines(web, inv, o);
  const text = lines.join('\n');
  assert.match(text, /^Release: +team\/web$/m);
  assert.match(text, /^Source: +git https:\/\/git.example\/app.git @ main path app$/m);
  assert.match(text, /^Policy: +Auto, prune, rollout deadline 10m, rollback OnFailure$/m);
  // render refs as short ids, like every other line (the full ref is in -o yaml)
  assert.match(text, /^Current: +sha256:222222222222 revision abc123$/m);
  assert.doesNotMatch(text, /[0-9a-f]{13}/);
  assert.match(text, /^Rollout: +Progressing sha256:222222222222 revision abc123, started 3m ago$/m);
  assert.match(text, /^Last healthy: +sha256:111111111111 revision old999, 24h ago$/m);
  assert.match(text, /^ {2}WAVE +STARTED +COMPLETED +HEALTHY$/m);
  assert.match(text, /^ {2}0 +3m ago +2m ago +1\/1$/m);
  assert.match(text, /^ {2}1 +2m ago +- +0\/1$/m);
  assert.match(text, /^ {2}migrate +PreSync +Succeeded +Job\/migrate-222222 +3m/m);
  assert.match(text, /^ {2}Ready +False +WaitingForWaveHealth +2m +wave 1$/m);
});

test('status of a pinned Release names the pin by its short id', () => {
  const pinned = rel('p', 'x', { spec: { source: { inline: { manifests: 'x' } }, pin: { renderRef: R1 } } });
  const text = statusLines(pinned, undefined, o).join('\n');
  assert.match(
    text,
    /^Pinned: +sha256:111111111111 \(the source is not followed; convoy unpin p to follow it\)$/m,
  );
});

test('status of a new Release says what is missing', () => {
  const text = statusLines(rel('new', 'x'), undefined, o).join('\n');
  assert.match(text, /Current: +- \(not rendered yet\)/);
  assert.match(text, /Waves \(render -\):\n {2}none yet/);
  assert.match(text, /Conditions:\n {2}none yet/);
});

test('status: Hooks says none started yet while Ready waits for hooks', () => {
  const waiting = rel('w', 'x', {
    status: {
      observedGeneration: 1,
      currentRender: { renderRef: R2, revision: 'r' },
      lastAttempted: { renderRef: R2, revision: 'r', time: '2030-01-01T00:58:00Z', applied: true },
      conditions: [cond('Ready', 'Unknown', 'WaitingForHook', 'waiting for PostSync hooks')],
    },
  });
  const text = statusLines(waiting, undefined, o).join('\n');
  assert.match(text, /Hooks:\n {2}none started yet \(waiting for PostSync hooks\)/);
  assert.doesNotMatch(text, /Hooks:\n {2}none\n/);
});

test('health: summary, then one row per object with its state and message', () => {
  const lines = healthLines(healthResult(web, inv), o);
  assert.deepEqual(lines.slice(0, 4), [
    'Release:      team/web',
    'Render:       -',
    'Healthy:      Unknown (Progressing)',
    'Objects:      1/2 healthy, 1 progressing, 0 degraded, 0 unknown',
  ]);
  // The same line as watch and status print, from the API's own progress.
  assert.equal(lines[4], `Progress:     ${progressLine(progressSummary(web, inv), false)}`);
  assert.deepEqual(lines.slice(6, 9), [
    'WAVE   OBJECT                     STATE         MESSAGE',
    '0      ConfigMap team/cfg         Healthy       exists',
    '1      apps/Deployment team/web   Progressing   available 1 of 3',
  ]);
  assert.match(lines.join('\n'), /Hooks:\n {2}NAME/);
});

test('history: newest first, with what each render is now', () => {
  const h = historyResult(web, [
    {
      renderRef: R2,
      revision: 'abc123',
      storedAt: '2030-01-01T00:57:00Z',
      chunkCount: 1,
      complete: true,
      storedBytes: 10,
    },
  ]);
  const lines = historyLines(h, web, o);
  assert.match(lines[0] ?? '', /^RENDER +REVISION +APPLIED +RESULT +STORED +TRIGGERED BY +NOTES$/);
  assert.match(
    lines[1] ?? '',
    new RegExp(`^${short(R2)} +abc123 +3m ago +Progressing +yes +sync requested by alice +current$`),
  );
  // an entry written before triggers were recorded says so rather than guessing
  assert.match(
    lines[2] ?? '',
    new RegExp(`^${short(R1)} +old999 +25h ago +- +no +unknown \\(recorded before .*\\) +last healthy$`),
  );
  assert.match(lines.join('\n'), /convoy pin web RENDER/);
});

test('history shows rolled-back renders and a failed attempt that applied nothing, newest first', () => {
  const r = rel('web', 'team', {
    spec: web.spec,
    status: {
      observedGeneration: 1,
      currentRender: { renderRef: R3, revision: 'c3' },
      rollout: { state: 'RolledBack', renderRef: R2, revision: 'b2', reason: 'DeadlineExceeded' },
      lastHealthy: { renderRef: R1, revision: 'a1', time: '2030-01-01T00:40:00Z' },
      history: [
        { renderRef: R1, revision: 'a1', appliedAt: '2030-01-01T00:30:00Z', result: 'Succeeded' },
        {
          renderRef: R2,
          revision: 'b2',
          appliedAt: '2030-01-01T00:45:00Z',
          result: 'RolledBack',
          reason: 'DeadlineExceeded',
        },
        {
          renderRef: R1,
          revision: 'a1',
          appliedAt: '2030-01-01T00:50:00Z',
          trigger: { kind: 'Rollback', reason: 'DeadlineExceeded' },
        },
      ],
      conditions: [
        cond('Ready', 'False', 'DryRunFailed', 'dry run failed: no such kind Widget\nmore'),
        cond('Stalled', 'False', 'NotStalled'),
      ],
    },
  });
  const h = historyResult(r, []);
  assert.deepEqual(h.failedAttempt, {
    renderRef: R3,
    revision: 'c3',
    time: '2030-01-01T00:58:00Z',
    reason: 'DryRunFailed',
    message: 'dry run failed: no such kind Widget\nmore',
  });
  const lines = historyLines(h, r, o);
  assert.match(
    lines[1] ?? '',
    new RegExp(
      `^${short(R3)} +c3 +not applied +Failed \\(DryRunFailed\\) +no +- +2m ago: dry run failed: no such kind Widget; more$`,
    ),
  );
  assert.match(
    lines[2] ?? '',
    new RegExp(
      `^${short(R1)} +a1 +10m ago +- +no +automatic rollback \\(failurePolicy\\) after DeadlineExceeded, to the last healthy revision a1 +last healthy$`,
    ),
  );
  assert.match(
    lines[3] ?? '',
    new RegExp(`^${short(R2)} +b2 +15m ago +RolledBack \\(DeadlineExceeded\\) +no +unknown \\(.*\\)$`),
  );
  assert.match(
    lines[4] ?? '',
    new RegExp(`^${short(R1)} +a1 +30m ago +Succeeded +no +unknown \\(.*\\) +last healthy$`),
  );
  // a source failure has no render of its own
  const source = historyResult(
    rel('web', 'team', {
      spec: web.spec,
      status: { conditions: [cond('Ready', 'False', 'SourceFailed', 'git: repository not found')] },
    }),
    [],
  );
  assert.deepEqual(source.failedAttempt, {
    time: '2030-01-01T00:58:00Z',
    reason: 'SourceFailed',
    message: 'git: repository not found',
  });
  // waiting is not a failure
  assert.equal(historyResult(web, []).failedAttempt, undefined);
});

test('history keeps renders that never applied: one row each, the newest with its failure', () => {
  const notApplied = (ref: string, rev: string, at: string) => ({
    renderRef: ref,
    revision: rev,
    attemptedAt: at,
    result: 'Failed' as const,
    reason: 'DryRunFailed',
    trigger: { kind: 'Source' as const },
  });
  const r = rel('web', 'team', {
    spec: web.spec,
    status: {
      observedGeneration: 1,
      currentRender: { renderRef: R3, revision: 'c3' },
      lastHealthy: { renderRef: R1, revision: 'a1', time: '2030-01-01T00:30:00Z' },
      history: [
        { renderRef: R1, revision: 'a1', appliedAt: '2030-01-01T00:30:00Z', result: 'Succeeded' },
        notApplied(R2, 'b2', '2030-01-01T00:40:00Z'),
        notApplied(R3, 'c3', '2030-01-01T00:58:00Z'),
      ],
      conditions: [cond('Ready', 'False', 'DryRunFailed', 'dry run failed: namespaces "x" not found')],
    },
  });
  const h = historyResult(r, []);
  assert.equal(h.history[1]?.attemptedAt, '2030-01-01T00:40:00Z');
  assert.equal(h.history[1]?.appliedAt, undefined);
  // lastAttempted names none of them (a dry run stores nothing): the trigger comes from the entry
  assert.equal(h.failedAttempt?.triggeredBy, 'new source revision c3');
  const lines = historyLines(h, r, o);
  assert.equal(lines.filter((l) => l.startsWith(short(R3))).length, 1, lines.join('\n'));
  assert.match(
    lines[1] ?? '',
    new RegExp(
      `^${short(R3)} +c3 +not applied +Failed \\(DryRunFailed\\) +no +new source revision c3 +2m ago: dry run failed`,
    ),
  );
  assert.match(
    lines[2] ?? '',
    new RegExp(
      `^${short(R2)} +b2 +not applied \\(20m ago\\) +Failed \\(DryRunFailed\\) +no +new source revision b2`,
    ),
  );
  assert.match(lines[3] ?? '', new RegExp(`^${short(R1)} +a1 +30m ago +Succeeded`));
});

test('objectName', () => {
  assert.equal(objectName({ group: '', kind: 'Namespace', namespace: '', name: 'x' }), 'Namespace x');
  assert.equal(
    objectName({ group: 'apps', kind: 'Deployment', namespace: 'n', name: 'x' }),
    'apps/Deployment n/x',
  );
});

test('status of a verifying Release lists each check with its counts and last value', () => {
  const verifying = rel('web', 'team', {
    spec: { ...web.spec, verification: { soak: '5m', checks: [] } },
    status: { ...web.status },
  });
  const text = statusLines(
    verifying,
    {
      ...inv,
      verification: {
        renderRef: R2,
        startedAt: '2030-01-01T00:58:30Z',
        phase: 'Running',
        message: '0 of 1 checks passed; running: error-rate',
        checks: [
          {
            name: 'error-rate',
            phase: 'Running',
            condition: 'result[0] > 0.01',
            successful: 3,
            failed: 1,
            inconclusive: 0,
            measurements: [{ at: '2030-01-01T00:59:30Z', phase: 'Successful', value: '[0.002]' }],
          },
        ],
      },
    },
    o,
  ).join('\n');
  assert.match(text, /^Verification \(soak 5m\): Running, started 90s ago$/m);
  assert.match(text, /^ {2}error-rate +Running +3\/1\/0 +\[0\.002\] \(30s ago\) +result\[0\] > 0\.01$/m);
  // another render's measurements are not this rollout's
  const other = statusLines(
    verifying,
    { ...inv, verification: { renderRef: R3, startedAt: '2030-01-01T00:58:30Z', phase: 'Failed' } },
    o,
  );
  assert.match(other.join('\n'), /^ {2}not started: the soak begins once every object is Healthy$/m);
});
