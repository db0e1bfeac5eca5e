// The resource tree by table: descendants by ownerReferences, each with the state its status says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childState, type LiveObject, resourceTree, type TreeNode } from './tree.ts';

const obj = (
  kind: string,
  name: string,
  uid: string,
  owner?: string,
  status: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
): LiveObject => ({
  kind,
  metadata: {
    name,
    namespace: 'shop',
    uid,
    ...(owner === undefined ? {} : { ownerReferences: [{ uid: owner }] }),
  },
  status,
  spec,
});

const deployment = obj('Deployment', 'web', 'd1');
const live = [
  deployment,
  obj('ReplicaSet', 'web-1', 'rs1', 'd1', { readyReplicas: 1 }, { replicas: 2 }),
  obj('Pod', 'web-1-b', 'p2', 'rs1', {
    phase: 'Running',
    containerStatuses: [{ ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
  }),
  obj('Pod', 'web-1-a', 'p1', 'rs1', { phase: 'Running', containerStatuses: [{ ready: true }] }),
  obj('EndpointSlice', 'web-x', 'e1', 's1'),
  obj('Pod', 'loop', 'loop', 'loop'),
];

test('resourceTree: Deployment → ReplicaSet → Pods sorted by name, each with its state; a missing object says so', () => {
  const tree = resourceTree(
    [
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: 'shop',
        name: 'web',
        health: 'Degraded',
        live: deployment,
      },
      { group: '', version: 'v1', kind: 'Service', namespace: 'shop', name: 'web', health: 'Healthy' },
    ],
    live,
  );
  const flat = (nodes: readonly TreeNode[], depth = 0): string[] =>
    nodes.flatMap((n) => [
      `${'  '.repeat(depth)}${n.kind} ${n.name} ${n.state}${n.detail ? ` (${n.detail})` : ''}`,
      ...flat(n.children, depth + 1),
    ]);
  assert.deepEqual(flat(tree), [
    'Deployment.apps web Degraded',
    '  ReplicaSet web-1 Progressing (1 of 2 ready)',
    '    Pod web-1-a Healthy',
    '    Pod web-1-b Progressing (CrashLoopBackOff)',
    'Service web Missing (not found in the cluster)',
  ]);
});

test('resourceTree: an object that owns itself is not followed forever', () => {
  const self = obj('Pod', 'loop', 'loop', 'loop');
  const [root] = resourceTree(
    [
      {
        group: '',
        version: 'v1',
        kind: 'Pod',
        namespace: 'shop',
        name: 'loop',
        health: 'Healthy',
        live: self,
      },
    ],
    [self],
  );
  let depth = 0;
  for (let n = root; n !== undefined && n.children.length > 0; n = n.children[0]) depth++;
  assert.equal(depth, 6);
});

test('childState: Jobs and Pods by their status', () => {
  assert.deepEqual(childState(obj('Job', 'j', 'j', undefined, { active: 1 })), {
    state: 'Progressing',
    detail: '1 active',
  });
  assert.deepEqual(childState(obj('Job', 'j', 'j', undefined, { succeeded: 1, completionTime: 'x' })), {
    state: 'Healthy',
    detail: '1 succeeded',
  });
  assert.deepEqual(childState(obj('Job', 'j', 'j', undefined, { failed: 2 })), {
    state: 'Degraded',
    detail: '2 failed',
  });
  assert.deepEqual(childState(obj('Pod', 'p', 'p', undefined, { phase: 'Pending' })), {
    state: 'Pending',
    detail: '',
  });
  assert.deepEqual(childState(obj('Pod', 'p', 'p', undefined, { phase: 'Succeeded' })), {
    state: 'Succeeded',
    detail: '',
  });
});
