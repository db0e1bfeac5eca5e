import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster, Condition } from '../../api/types.ts';
import { fromResponse } from '../../kube/errors.ts';
import { readyTrue, testCluster } from './fixtures.ts';
import { describeProbeError } from './probe.ts';
import { clusterStatus, type ProbeResult, readyCondition } from './status.ts';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';

function cluster(ready?: Partial<Condition>, generation = 3): Cluster {
  const base = { message: '', lastTransitionTime: T0 };
  return testCluster({
    namespace: 'team',
    generation,
    ...(ready === undefined ? {} : { ready: readyTrue(base, ready) }),
  });
}

describe('readyCondition', () => {
  const table: [ProbeResult, string, string, string][] = [
    [{ kind: 'reachable', version: 'v1.36.3' }, 'True', 'Reachable', 'Kubernetes v1.36.3'],
    [
      { kind: 'unreachable', message: 'cannot reach x: boom' },
      'False',
      'Unreachable',
      'cannot reach x: boom',
    ],
    [
      { kind: 'secretNotFound', message: 'Secret a/b not found' },
      'False',
      'SecretNotFound',
      'Secret a/b not found',
    ],
    [{ kind: 'invalidKubeconfig', message: 'bad' }, 'False', 'InvalidKubeconfig', 'bad'],
    [
      { kind: 'paused' },
      'False',
      'Paused',
      'spec.paused is true: convoy syncs nothing to this cluster and does not probe it',
    ],
  ];
  for (const [probe, status, reason, message] of table) {
    it(`${probe.kind} -> Ready=${status} ${reason}`, () => {
      assert.deepEqual(readyCondition(probe), { type: 'Ready', status, reason, message });
    });
  }
});

describe('clusterStatus', () => {
  it('a first probe stamps now, observedGeneration and the version', () => {
    assert.deepEqual(clusterStatus(cluster(), { kind: 'reachable', version: 'v1.36.3' }, T1), {
      observedGeneration: 3,
      serverVersion: 'v1.36.3',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reachable',
          message: 'Kubernetes v1.36.3',
          observedGeneration: 3,
          lastTransitionTime: T1,
        },
      ],
    });
  });

  it('a steady probe reproduces the cached condition exactly (so nothing is written)', () => {
    const c = cluster({ message: 'Kubernetes v1.36.3', observedGeneration: 3 });
    const s = clusterStatus(c, { kind: 'reachable', version: 'v1.36.3' }, T1);
    assert.deepEqual(s.conditions, c.status?.conditions);
  });

  it('a new message with the same status keeps lastTransitionTime', () => {
    const c = cluster({ status: 'False', reason: 'Unreachable', message: 'old' });
    const s = clusterStatus(c, { kind: 'secretNotFound', message: 'new' }, T1);
    assert.equal(s.conditions?.[0]?.lastTransitionTime, T0);
    assert.equal(s.conditions?.[0]?.reason, 'SecretNotFound');
  });

  it('a status change moves lastTransitionTime', () => {
    const s = clusterStatus(cluster(), { kind: 'unreachable', message: 'down' }, T1);
    assert.equal(s.conditions?.[0]?.lastTransitionTime, T1);
  });

  it('leaves serverVersion out unless the server answered', () => {
    for (const probe of [
      { kind: 'unreachable', message: 'x' },
      { kind: 'paused' },
      { kind: 'secretNotFound', message: 'x' },
    ] as const) {
      assert.equal('serverVersion' in clusterStatus(cluster(), probe, T1), false, probe.kind);
    }
  });
});

describe('describeProbeError', () => {
  const server = 'https://127.0.0.1:39999';
  const table: [string, unknown, string][] = [
    [
      'connection refused (fetch wraps the socket error)',
      Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:39999'), { code: 'ECONNREFUSED' }),
      }),
      'cannot reach https://127.0.0.1:39999: connect ECONNREFUSED 127.0.0.1:39999',
    ],
    [
      'timeout',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'cannot reach https://127.0.0.1:39999: no answer within 10s',
    ],
    [
      'an API answer',
      fromResponse(401, '{"kind":"Status","reason":"Unauthorized","message":"Unauthorized"}', {
        method: 'GET',
        path: '/version',
      }),
      'cannot reach https://127.0.0.1:39999: GET /version answered 401 Unauthorized: Unauthorized',
    ],
    ['anything else', new Error('boom'), 'cannot reach https://127.0.0.1:39999: boom'],
  ];
  for (const [name, err, message] of table) {
    it(name, () => assert.equal(describeProbeError(err, server, 10_000), message));
  }
});
