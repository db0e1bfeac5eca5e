// Table tests of pollHookWorkload's decision (docs/design.md#hook-polling) and of which hook entries are
// polled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DecideInput, decideHook, shouldPoll, type Workload } from './decide.ts';

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
