// Table tests of pollHookWorkload's decision (docs/design.md#hook-polling) and of which hook entries are
// polled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeEvent } from '../../kube/events.ts';
import { type DecideInput, decideHook, shouldPoll, type Workload, workloadWarnings } from './decide.ts';

const now = new Date('2030-01-01T00:10:00Z');
const job = (
  conditions: { type: string; status: string; message?: string; reason?: string }[],
): Workload => ({
  kind: 'Job',
  object: { status: { conditions } },
});
const pod = (status: Record<string, unknown>): Workload => ({ kind: 'Pod', object: { status } });
const input = (workload: Workload, createdAt = '2030-01-01T00:09:00Z', timeoutMs?: number): DecideInput => ({
  workload,
  createdAt,
  timeoutMs,
  now,
});

describe('decideHook', () => {
  const rows: [string, DecideInput, string, string, string | RegExp][] = [
    ['job complete', input(job([{ type: 'Complete', status: 'True' }])), 'Succeeded', 'Succeeded', ''],
    [
      'job failed, message from the condition',
      input(
        job([
          {
            type: 'Failed',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
          },
        ]),
      ),
      'Failed',
      'Failed',
      'Job has reached the specified backoff limit',
    ],
    [
      'job Failed=False is not a failure',
      input(job([{ type: 'Failed', status: 'False' }])),
      'Running',
      'Running',
      '',
    ],
    ['job running, no timeout', input(job([]), '2029-01-01T00:00:00Z'), 'Running', 'Running', ''],
    ['job running, before timeout', input(job([]), '2030-01-01T00:09:00Z', 61_000), 'Running', 'Running', ''],
    ['job running, at timeout', input(job([]), '2030-01-01T00:09:00Z', 60_000), 'Failed', 'Timeout', /60s/],
    ['pod succeeded', input(pod({ phase: 'Succeeded' })), 'Succeeded', 'Succeeded', ''],
    [
      'pod failed, container termination message',
      input(
        pod({
          phase: 'Failed',
          containerStatuses: [
            { name: 'ok', state: { terminated: { exitCode: 0 } } },
            { name: 'main', state: { terminated: { exitCode: 1, message: 'boom' } } },
          ],
        }),
      ),
      'Failed',
      'Failed',
      'container main: boom',
    ],
    [
      'pod failed, exit code when no message',
      input(
        pod({
          phase: 'Failed',
          containerStatuses: [{ name: 'main', state: { terminated: { exitCode: 2, reason: 'Error' } } }],
        }),
      ),
      'Failed',
      'Failed',
      'container main: Error (exit code 2)',
    ],
    [
      'pod failed, pod message',
      input(pod({ phase: 'Failed', message: 'evicted' })),
      'Failed',
      'Failed',
      'evicted',
    ],
    [
      'pod pending past timeout',
      input(pod({ phase: 'Pending' }), '2030-01-01T00:00:00Z', 300_000),
      'Failed',
      'Timeout',
      /300s/,
    ],
    ['pod running', input(pod({ phase: 'Running' })), 'Running', 'Running', ''],
    ['not found', input({ kind: 'notFound' }), 'Failed', 'NotFound', 'workload not found'],
  ];
  for (const [name, inp, state, reason, message] of rows) {
    it(name, () => {
      const v = decideHook(inp);
      assert.equal(v.state, state);
      assert.equal(v.reason, reason);
      if (typeof message === 'string') assert.equal(v.message, message);
      else assert.match(v.message, message);
    });
  }
});

describe('shouldPoll', () => {
  const rows: [string, Parameters<typeof shouldPoll>[0], boolean][] = [
    ['no workload yet', { createdAt: '2030-01-01T00:00:00Z' }, false],
    ['running, no finishedAt', { workloadName: 'w', createdAt: '2030-01-01T00:00:00Z' }, true],
    [
      'finished after created',
      { workloadName: 'w', createdAt: '2030-01-01T00:00:00Z', finishedAt: '2030-01-01T00:01:00Z' },
      false,
    ],
    [
      'finished at created',
      { workloadName: 'w', createdAt: '2030-01-01T00:00:00Z', finishedAt: '2030-01-01T00:00:00Z' },
      false,
    ],
    [
      're-armed: created after finished',
      { workloadName: 'w', createdAt: '2030-01-01T00:02:00Z', finishedAt: '2030-01-01T00:01:00Z' },
      true,
    ],
  ];
  for (const [name, h, want] of rows) it(name, () => assert.equal(shouldPoll(h), want));
});

describe('a workload that does not finish says why: its Warning Events', () => {
  const ev = (
    kind: string,
    name: string,
    reason: string,
    message: string,
    at: string,
    type = 'Warning',
  ): KubeEvent => ({
    type,
    reason,
    message,
    lastTimestamp: at,
    involvedObject: { kind, name },
  });
  const sa = 'error looking up service account app/secret-init: serviceaccount "secret-init" not found';
  const events = [
    ev('Job', 'init-abc', 'FailedCreate', sa, '2030-01-01T00:09:30Z'),
    ev('Job', 'init-abc', 'FailedCreate', 'older', '2030-01-01T00:09:10Z'),
    ev(
      'Pod',
      'init-abc-x7k2p',
      'FailedScheduling',
      '0/3 nodes are available: 3 Insufficient cpu.',
      '2030-01-01T00:09:20Z',
    ),
    ev('Job', 'init-abc', 'Normal thing', 'not a warning', '2030-01-01T00:09:40Z', 'Normal'),
    ev('Job', 'other', 'FailedCreate', 'another hook', '2030-01-01T00:09:50Z'),
    ev(
      'Pod',
      'init-abcdef-1',
      'BackOff',
      'a Pod of another Job whose name starts alike',
      '2030-01-01T00:09:55Z',
    ),
  ];
  it('workloadWarnings: the Job and its Pods, newest first, one per object and reason', () => {
    assert.deepEqual(
      workloadWarnings(events, 'Job', 'init-abc').map((w) => `${w.object} ${w.reason}`),
      ['Job/init-abc FailedCreate', 'Pod/init-abc-x7k2p FailedScheduling'],
    );
    assert.deepEqual(
      workloadWarnings(events, 'Pod', 'init-abc'),
      [],
      'a Pod hook: only Events about that Pod',
    );
  });
  it('Running says the newest warning; a timeout adds it to its message', () => {
    const warnings = workloadWarnings(events, 'Job', 'init-abc');
    const runningNow = decideHook({ ...input(job([])), warnings });
    assert.deepEqual(runningNow, {
      state: 'Running',
      reason: 'Running',
      message: `Job/init-abc: FailedCreate: ${sa}`,
    });
    const late = decideHook({ ...input(job([]), '2030-01-01T00:00:00Z', 300_000), warnings });
    assert.equal(late.reason, 'Timeout');
    assert.equal(late.message, `did not finish within 300s; last warning: Job/init-abc: FailedCreate: ${sa}`);
  });
});
