// Table test of judgeJobRun (docs/design.md#verification): how a job check's Job in flight is read into a
// measurement, or a message while it runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobRun } from '../../api/schema/verification.ts';
import type { HookVerdict } from '../hooks/decide.ts';
import { type JobRead, judgeJobRun } from './job-runs.ts';

const run: JobRun = {
  name: 'app-smoke-2222222222-0',
  index: 0,
  requestedAt: '2030-01-01T00:00:00Z',
  timeout: '1m',
  job: { spec: {} },
};
const T0 = Date.parse(run.requestedAt);
const ours = (verdict: HookVerdict): JobRead => ({ kind: 'ours', verdict });

test('judgeJobRun, row by row', () => {
  const rows: readonly [string, JobRead, number, string, string?][] = [
    [
      'not created yet',
      { kind: 'absent' },
      T0 + 10_000,
      'running',
      'waiting for Job ns/app-smoke-2222222222-0 to be created',
    ],
    [
      'never created: an Error at the timeout',
      { kind: 'absent' },
      T0 + 60_000,
      'Error',
      'was not created within 60s',
    ],
    [
      'running',
      ours({ state: 'Running', reason: 'Running', message: '' }),
      T0,
      'running',
      'Job ns/app-smoke-2222222222-0 running',
    ],
    [
      'cannot start: its Warning Event says why',
      ours({
        state: 'Running',
        reason: 'Running',
        message: 'Job/x: FailedCreate: serviceaccount "nope" not found',
      }),
      T0,
      'running',
      'FailedCreate: serviceaccount "nope" not found',
    ],
    [
      'complete',
      ours({ state: 'Succeeded', reason: 'Succeeded', message: '' }),
      T0,
      'Successful',
      'the Job succeeded',
    ],
    [
      'failed',
      ours({ state: 'Failed', reason: 'Failed', message: 'BackoffLimitExceeded' }),
      T0,
      'Failed',
      'the Job failed: Job ns/app-smoke-2222222222-0: BackoffLimitExceeded',
    ],
    [
      'never finished: an Error, never a failure',
      ours({ state: 'Failed', reason: 'Timeout', message: 'did not finish within 60s' }),
      T0 + 60_000,
      'Error',
      'did not finish within 60s',
    ],
    [
      'deleted by hand',
      ours({ state: 'Failed', reason: 'NotFound', message: 'workload not found' }),
      T0,
      'running',
    ],
  ];
  for (const [name, read, now, want, text] of rows) {
    const j = judgeJobRun(run, 'ns', read, now);
    const got = j.kind === 'running' ? 'running' : j.measured.phase;
    assert.equal(got, want, name);
    const said = j.kind === 'running' ? j.message : (j.measured.decided ?? j.measured.message ?? '');
    if (text !== undefined) assert.ok(said.includes(text), `${name}: ${said}`);
  }
});
