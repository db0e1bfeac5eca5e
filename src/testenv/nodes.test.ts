// When a simulated node counts as able to run pods.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_READY_TAINT, type NodeLike, nodeManifest, nodeSchedulable } from './nodes.ts';

const ready = { conditions: [{ type: 'Ready', status: 'True' }] };
const notReady = { conditions: [{ type: 'Ready', status: 'False' }] };
const taint = { taints: [{ key: NOT_READY_TAINT, effect: 'NoSchedule' }] };

describe('nodeSchedulable', () => {
  const cases: [string, NodeLike, boolean][] = [
    ['new node without status', { metadata: { name: 'n' } }, false],
    ['Ready, untainted', { metadata: { name: 'n' }, status: ready }, true],
    [
      'Ready but still carrying the not-ready taint',
      { metadata: { name: 'n' }, spec: taint, status: ready },
      false,
    ],
    ['not Ready', { metadata: { name: 'n' }, status: notReady }, false],
    [
      'Ready with an unrelated taint',
      { metadata: { name: 'n' }, spec: { taints: [{ key: 'other', effect: 'NoSchedule' }] }, status: ready },
      true,
    ],
  ];
  for (const [name, node, want] of cases) it(name, () => assert.equal(nodeSchedulable(node), want));
});

describe('nodeManifest', () => {
  it('names the node and marks it for kwok', () => {
    const n = nodeManifest('kwok-node-0') as {
      metadata: { name: string; annotations: Record<string, string> };
    };
    assert.equal(n.metadata.name, 'kwok-node-0');
    assert.equal(n.metadata.annotations['kwok.x-k8s.io/node'], 'fake');
  });
});
