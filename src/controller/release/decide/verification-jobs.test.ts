// Table tests of the controller's half of job checks (docs/design.md#verification): which Jobs R's
// verification wants, what to do with the live ones, the Job as created, and the wake-up its runs give.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_RELEASE_UID, LABEL_RELEASE } from '../../../api/constants.ts';
import { healthChanged } from '../../../api/health-wake.ts';
import type { CheckStatus, JobRun, VerificationStatus } from '../../../api/schema/verification.ts';
import { R1, R2 } from '../../../api/testsupport.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { jobAttemptMarks } from '../../../api/verification-job.ts';
import {
  type JobAction,
  jobsMayExist,
  type LiveJob,
  planVerificationJobs,
  verificationJobObject,
  wantedJobs,
} from './verification-jobs.ts';

const STARTED = '2030-01-01T00:05:00Z';
const SOAK = '2030-01-01T00:06:00Z';
const run = (name: string): JobRun => ({
  name,
  index: 0,
  requestedAt: SOAK,
  timeout: '1m',
  job: { metadata: { labels: { team: 'web' } }, spec: { backoffLimit: 0, activeDeadlineSeconds: 600 } },
});
const check = (over: Partial<CheckStatus> = {}): CheckStatus => ({
  name: 'smoke',
  phase: 'Running',
  provider: 'job',
  successful: 0,
  failed: 0,
  inconclusive: 0,
  run: run('app-smoke-2222222222-0'),
  ...over,
});
const verification = (over: Partial<VerificationStatus> = {}): VerificationStatus => ({
  renderRef: R2,
  startedAt: SOAK,
  phase: 'Running',
  checks: [check()],
  ...over,
});
const inventory = (v: VerificationStatus | undefined): ReleaseInventory =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { namespace: 'ns', name: 'app' },
    ...(v === undefined ? {} : { verification: v }),
  }) as ReleaseInventory;
function release(
  over: { state?: string; pin?: boolean; deleting?: boolean; verification?: boolean } = {},
): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: {
      namespace: 'ns',
      name: 'app',
      uid: 'u1',
      ...(over.deleting ? { deletionTimestamp: STARTED } : {}),
    },
    spec: {
      source: { inline: { manifests: 'x' } },
      ...(over.verification === false ? {} : { verification: { soak: '1m', checks: [] } }),
      ...(over.pin ? { pin: { renderRef: R1 } } : {}),
    },
    status: {
      rollout: {
        state: over.state ?? 'Progressing',
        renderRef: R2,
        revision: 'r2',
        reason: 'NewRender',
        message: 'm',
        startedAt: STARTED,
      },
    },
  } as Release;
}

test("wantedJobs: the runs of R's unfinished verification while its rollout progresses", () => {
  const rows: readonly [string, Release, VerificationStatus | undefined, string[]][] = [
    ['a run asked for', release(), verification(), ['app-smoke-2222222222-0']],
    [
      'Inconclusive keeps measuring',
      release(),
      verification({ phase: 'Inconclusive' }),
      ['app-smoke-2222222222-0'],
    ],
    ['no run', release(), verification({ checks: [check({ run: undefined })] }), []],
    ['verification Passed', release(), verification({ phase: 'Passed' }), []],
    ['verification Failed', release(), verification({ phase: 'Failed' }), []],
    ['the check Failed', release(), verification({ checks: [check({ phase: 'Failed' })] }), []],
    ['another render (superseded)', release(), verification({ renderRef: R1 }), []],
    ['an older attempt of R', release(), verification({ startedAt: '2030-01-01T00:01:00Z' }), []],
    [
      'rollout Succeeded (accepted)',
      release({ state: 'Succeeded' }),
      verification({ phase: 'Inconclusive' }),
      [],
    ],
    ['rollout RolledBack', release({ state: 'RolledBack' }), verification(), []],
    ['pinned', release({ pin: true }), verification(), []],
    ['being deleted', release({ deleting: true }), verification(), []],
    ['no spec.verification', release({ verification: false }), verification(), []],
    ['no verification yet', release(), undefined, []],
  ];
  for (const [name, rel, v, want] of rows) {
    const got = wantedJobs(rel, inventory(v));
    assert.deepEqual(
      got.map((w) => w.run.name),
      want,
      name,
    );
    for (const w of got)
      assert.deepEqual(w.attempt, { check: 'smoke', renderRef: R2, startedAt: SOAK }, name);
  }
  assert.equal(jobsMayExist(inventory(verification({ phase: 'Passed' })), []), true, 'a job check ran');
  const web = verification({ checks: [check({ provider: 'web', run: undefined })] });
  assert.equal(jobsMayExist(inventory(web), []), false, 'no job check: no list');
  assert.equal(jobsMayExist(undefined, []), false);
});

const attempt = { check: 'smoke', renderRef: R2, startedAt: SOAK };
function live(
  name: string,
  over: { uid?: string; attempt?: typeof attempt; deleting?: boolean } = {},
): LiveJob {
  const marks = jobAttemptMarks(over.attempt ?? attempt);
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: { [LABEL_RELEASE]: 'ns.app', ...marks.labels },
      annotations: { [ANNOTATION_RELEASE_UID]: over.uid ?? 'u1', ...marks.annotations },
      ...(over.deleting ? { deletionTimestamp: STARTED } : {}),
    },
  };
}
const want = { run: run('j-1'), attempt };
const summary = (a: JobAction) => (a.kind === 'create' ? `create ${a.want.run.name}` : `${a.kind} ${a.name}`);

test('planVerificationJobs: create, adopt, replace an older attempt, delete the rest of ours', () => {
  const rows: readonly [string, readonly (typeof want)[], readonly LiveJob[], string[]][] = [
    ['none live: create', [want], [], ['create j-1']],
    ['ours for this attempt: adopted (a restarted controller creates no second)', [want], [live('j-1')], []],
    [
      "an older attempt's under the name: deleted first",
      [want],
      [live('j-1', { attempt: { ...attempt, startedAt: STARTED } })],
      ['delete j-1'],
    ],
    [
      'an older attempt being deleted: wait',
      [want],
      [live('j-1', { attempt: { ...attempt, startedAt: STARTED }, deleting: true })],
      [],
    ],
    ["another Release's uid under the name: left", [want], [live('j-1', { uid: 'u2' })], ['foreign j-1']],
    ['a finished measurement: deleted', [want], [live('j-0'), live('j-1')], ['delete j-0']],
    [
      'nothing wanted: every one of ours deleted',
      [],
      [live('j-0'), live('j-1')],
      ['delete j-0', 'delete j-1'],
    ],
    ['a copied label: never deleted', [], [live('j-9', { uid: 'u2' })], []],
    ['already being deleted', [], [live('j-0', { deleting: true })], []],
  ];
  for (const [name, wanted, liveJobs, expected] of rows) {
    assert.deepEqual(planVerificationJobs(wanted, liveJobs, 'u1').map(summary), expected, name);
  }
});

test('verificationJobObject: marked, labelled, ended by the cluster a little past the timeout', () => {
  const obj = verificationJobObject(want, 'target', 'ns.app', 'u1') as unknown as {
    metadata: {
      name: string;
      namespace: string;
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    spec: { activeDeadlineSeconds: number; backoffLimit: number };
  };
  assert.deepEqual([obj.metadata.name, obj.metadata.namespace], ['j-1', 'target']);
  assert.equal(obj.metadata.labels.team, 'web');
  assert.equal(obj.metadata.labels[LABEL_RELEASE], 'ns.app');
  assert.equal(obj.metadata.annotations[ANNOTATION_RELEASE_UID], 'u1');
  assert.deepEqual(jobAttemptMarks(attempt).labels, { 'convoy.kumodo.io/verification-check': 'smoke' });
  assert.equal(obj.spec.activeDeadlineSeconds, 70, 'the 1m timeout and a margin, sooner than its own 600');
  assert.equal(obj.spec.backoffLimit, 0);
});

test('healthChanged: a run asked for or ended wakes the controller; a running Job read again does not', () => {
  const inv = (c: CheckStatus) => ({ verification: verification({ checks: [c] }) });
  assert.equal(healthChanged(inv(check({ run: undefined })), inv(check())), true, 'asked for');
  assert.equal(healthChanged(inv(check()), inv(check({ run: undefined, successful: 1 }))), true, 'ended');
  assert.equal(
    healthChanged(inv(check()), inv(check({ message: 'smoke: Job running' }))),
    false,
    'read again',
  );
});
