import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EXPLAIN_AFTER_MS,
  explainDue,
  MAX_WHY_CHARS,
  type PodLike,
  slimPod,
  whyNotAvailable,
  withWhy,
  workloadSelector,
} from './pod-why.ts';
import type { KubeObject } from './types.ts';

const sel = { matchLabels: { app: 'web' } };
const labels = { app: 'web' };

function pod(name: string, created: string, status: NonNullable<PodLike['status']>, l = labels): PodLike {
  return { metadata: { name, creationTimestamp: created, labels: l }, status };
}
const t1 = '2026-01-01T10:00:00Z';
const t2 = '2026-01-01T10:05:00Z';
const unschedulable = {
  phase: 'Pending',
  conditions: [
    {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: '0/3 nodes are available: 3 Insufficient ephemeral-storage.',
    },
  ],
};
const waiting = (reason: string, message?: string, last?: object) => ({
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'True' }],
  containerStatuses: [
    {
      name: 'app',
      state: { waiting: { reason, ...(message ? { message } : {}) } },
      ...(last ? { lastState: last } : {}),
    },
  ],
});
const ready = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [
    { name: 'app', state: { running: {} }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } },
  ],
};

test('whyNotAvailable', () => {
  const cases: [string, readonly PodLike[], string | undefined][] = [
    ['no Pods', [], undefined],
    ['only Ready Pods (an earlier crash does not count)', [pod('a', t1, ready)], undefined],
    ['a Succeeded Pod', [pod('a', t1, { phase: 'Succeeded' })], undefined],
    ['a container still creating', [pod('a', t1, waiting('ContainerCreating'))], undefined],
    [
      'PodScheduled=False: its reason and message',
      [pod('web-1', t1, unschedulable)],
      'pod web-1: Unschedulable: 0/3 nodes are available: 3 Insufficient ephemeral-storage.',
    ],
    ['a Pod another selector selects is ignored', [pod('db-1', t1, unschedulable, { app: 'db' })], undefined],
    [
      'an image pull error',
      [pod('web-1', t1, waiting('ImagePullBackOff', 'Back-off pulling image "nope:1"'))],
      'pod web-1: container app: ImagePullBackOff: Back-off pulling image "nope:1"',
    ],
    [
      'CrashLoopBackOff says its last exit, not its growing back-off',
      [
        pod(
          'web-1',
          t1,
          waiting('CrashLoopBackOff', 'back-off 40s restarting failed container', {
            terminated: { exitCode: 2, reason: 'Error', message: 'no config' },
          }),
        ),
      ],
      'pod web-1: container app: CrashLoopBackOff: last exit Error (exit code 2): no config',
    ],
    [
      'CrashLoopBackOff without a last state',
      [pod('web-1', t1, waiting('CrashLoopBackOff', 'back-off 10s'))],
      'pod web-1: container app: CrashLoopBackOff',
    ],
    [
      'an init container waiting comes first',
      [
        pod('web-1', t1, {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              state: { waiting: { reason: 'CreateContainerConfigError', message: 'secret "s" not found' } },
            },
          ],
        }),
      ],
      'pod web-1: container init: CreateContainerConfigError: secret "s" not found',
    ],
    [
      'a waiting container beats an unschedulable Pod, even an older one',
      [pod('web-2', t2, unschedulable), pod('web-1', t1, waiting('ErrImagePull', 'not found'))],
      'pod web-1: container app: ErrImagePull: not found',
    ],
    [
      'within a kind the newest Pod',
      [pod('web-1', t1, waiting('ErrImagePull', 'old')), pod('web-2', t2, waiting('ErrImagePull', 'new'))],
      'pod web-2: container app: ErrImagePull: new',
    ],
    [
      'a terminated container (a Job Pod that failed)',
      [
        pod('job-1', t1, {
          phase: 'Failed',
          containerStatuses: [{ name: 'run', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }],
        }),
      ],
      'pod job-1: container run: OOMKilled (exit code 137)',
    ],
    [
      'a not-Ready running container with a failed last state',
      [
        pod('web-1', t1, {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
          containerStatuses: [
            { name: 'app', state: { running: {} }, lastState: { terminated: { exitCode: 1 } } },
          ],
        }),
      ],
      'pod web-1: container app: terminated (exit code 1)',
    ],
    [
      'unschedulable beats terminated, terminated beats a Failed Pod',
      [
        pod('web-3', t2, { phase: 'Failed', reason: 'Evicted', message: 'low on memory' }),
        pod('web-2', t1, {
          phase: 'Running',
          containerStatuses: [{ name: 'app', lastState: { terminated: { exitCode: 1, reason: 'Error' } } }],
        }),
      ],
      'pod web-2: container app: Error (exit code 1)',
    ],
    [
      'an evicted Pod',
      [
        pod('web-3', t2, {
          phase: 'Failed',
          reason: 'Evicted',
          message: 'The node was low on resource: memory.',
        }),
      ],
      'pod web-3: Failed: Evicted: The node was low on resource: memory.',
    ],
    [
      'a Pod being deleted (its containers stopped by the deletion)',
      [
        {
          metadata: { name: 'web-0', creationTimestamp: t2, deletionTimestamp: t2, labels },
          status: {
            phase: 'Running',
            containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 143, reason: 'Error' } } }],
          },
        },
      ],
      undefined,
    ],
    [
      'newlines become spaces',
      [pod('web-1', t1, waiting('ErrImagePull', 'line one\n  line two'))],
      'pod web-1: container app: ErrImagePull: line one line two',
    ],
  ];
  for (const [name, pods, want] of cases) assert.equal(whyNotAvailable(sel, pods), want, name);
});

test('whyNotAvailable is bounded: a long message is cut to MAX_WHY_CHARS', () => {
  const why = whyNotAvailable(sel, [pod('web-1', t1, waiting('ErrImagePull', 'x'.repeat(100_000)))]);
  assert.equal(why?.length, MAX_WHY_CHARS);
  assert.ok(why?.endsWith('…'));
});

test('whyNotAvailable: matchExpressions select too', () => {
  const exprs = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] };
  assert.equal(
    whyNotAvailable(exprs, [
      pod('api-1', t1, unschedulable, { app: 'api' }),
      pod('db-1', t2, unschedulable, { app: 'db' }),
    ]),
    'pod api-1: Unschedulable: 0/3 nodes are available: 3 Insufficient ephemeral-storage.',
  );
});

test('workloadSelector', () => {
  const obj = (apiVersion: string, kind: string, selector?: unknown): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name: 'x' },
    spec: selector === undefined ? {} : { selector },
  });
  const cases: [string, KubeObject, unknown][] = [
    ['Deployment', obj('apps/v1', 'Deployment', sel), sel],
    ['StatefulSet', obj('apps/v1', 'StatefulSet', sel), sel],
    ['DaemonSet', obj('apps/v1', 'DaemonSet', sel), sel],
    ['ReplicaSet', obj('apps/v1', 'ReplicaSet', sel), sel],
    ['Job', obj('batch/v1', 'Job', sel), sel],
    ['not a workload', obj('v1', 'Service', sel), undefined],
    ['a kind of that name in another group', obj('example.com/v1', 'Deployment', sel), undefined],
    ['no selector', obj('apps/v1', 'Deployment'), undefined],
    ['an empty selector would select every Pod', obj('apps/v1', 'Deployment', {}), undefined],
    [
      'an invalid selector',
      obj('apps/v1', 'Deployment', { matchExpressions: [{ key: 'a', operator: 'Near' }] }),
      undefined,
    ],
  ];
  for (const [name, o, want] of cases) assert.deepEqual(workloadSelector(o), want, name);
});

test('withWhy', () => {
  assert.equal(withWhy('0 of 2 available (rule d/r)', undefined), '0 of 2 available (rule d/r)');
  assert.equal(withWhy('0 of 2 available (rule d/r)', 'pod a: X'), '0 of 2 available (rule d/r); pod a: X');
});

test('slimPod keeps only what the decision reads', () => {
  const full = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'a',
      namespace: 'n',
      labels,
      deletionTimestamp: t1,
      annotations: { big: 'x' },
      ownerReferences: [],
    },
    spec: { containers: [{ name: 'app', image: 'i' }] },
    status: { ...unschedulable, podIP: '10.0.0.1' },
  } as unknown as KubeObject;
  assert.deepEqual(slimPod(full), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'a', namespace: 'n', deletionTimestamp: t1, labels },
    status: unschedulable,
  });
  assert.equal(whyNotAvailable(sel, [slimPod(full) as PodLike]), whyNotAvailable(sel, [full as PodLike]));
});

test('explainDue', () => {
  const now = new Date('2030-01-01T00:00:10Z');
  const cases: [string, string | undefined, string | undefined, boolean][] = [
    ['Progressing for 10 s', 'Progressing', '2030-01-01T00:00:00Z', true],
    ['Degraded', 'Degraded', '2030-01-01T00:00:00Z', true],
    ['Progressing for exactly EXPLAIN_AFTER_MS', 'Progressing', '2030-01-01T00:00:05Z', true],
    ['Progressing for less: most become available by then', 'Progressing', '2030-01-01T00:00:06Z', false],
    ['no anchor', 'Progressing', undefined, false],
    ['an unreadable anchor', 'Progressing', 'soon', false],
    ['Healthy', 'Healthy', '2030-01-01T00:00:00Z', false],
    ['Unknown: the rule could not judge', 'Unknown', '2030-01-01T00:00:00Z', false],
  ];
  assert.equal(EXPLAIN_AFTER_MS, 5_000);
  for (const [name, state, anchor, want] of cases) assert.equal(explainDue(state, anchor, now), want, name);
});
