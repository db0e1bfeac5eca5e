// assess's why (docs/design.md#assessment): over injected reads, a workload the rules find not available
// gets its Pods' reason in its message, its state and rule as judged; the Pods of a namespace are read
// once per pass whatever the number of workloads, and not at all (an empty call) when all are available
// or have not been for EXPLAIN_AFTER_MS.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { deploymentEntry } from '../../../api/testsupport.ts';
import { RecordingClient } from '../../client-testsupport.ts';
import type { LiveRead, ReadLive } from '../../live-reads.ts';
import type { PodsRead, ReadPods } from '../../pod-reads.ts';
import { deploy, rule, set } from '../testsupport.ts';
import { assess } from './assess.ts';
import { assessedRelease, mergedInventory } from './testsupport.ts';

const R = 'sha256:r';
const ruleSets = [
  set('s', [
    rule('avail', 'object.status.availableReplicas == object.spec.replicas', { message: "'not available'" }),
  ]),
];
const dep = (name: string, namespace: string, available: number) => ({
  ...deploy({ selector: { matchLabels: { app: name } } }, { availableReplicas: available }),
  metadata: { name, namespace, generation: 1 },
});
const unschedulable = (name: string, app: string) => ({
  metadata: { name, labels: { app }, creationTimestamp: '2030-01-01T00:00:00Z' },
  status: {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'no node fits' }],
  },
});

/** Not available since a minute before the pass, unless `anchor` says otherwise ('': new now). */
async function run(
  objects: readonly ReturnType<typeof dep>[],
  pods: ReadonlyMap<string, PodsRead>,
  anchor = '2030-01-01T00:09:00Z',
) {
  const calls: (readonly string[])[] = [];
  const read: ReadLive = async (_c, refs) => ({
    kind: 'read',
    reads: refs.map((r): LiveRead => {
      const o = objects.find((x) => x.metadata.name === r.name);
      return o === undefined ? { kind: 'absent' } : { kind: 'found', object: o };
    }),
    lists: 0,
    gets: refs.length,
  });
  const readPods: ReadPods = async (_c, namespaces) => {
    calls.push(namespaces);
    return pods;
  };
  const local = new RecordingClient({ answer: async (req) => req.body });
  const a = await assess(assessedRelease, {
    ruleSets,
    inventory: mergedInventory(
      objects.map((o) =>
        deploymentEntry(
          o.metadata.namespace,
          o.metadata.name,
          0,
          R,
          anchor ? { firstUnhealthy: anchor } : {},
        ),
      ),
    ),
    resolveTarget: async () => ({ kind: 'local', client: new RecordingClient() }),
    local,
    now: () => new Date('2030-01-01T00:10:00Z'),
    read,
    pods: readPods,
  });
  return { after: a.after, calls };
}

it('a workload not available says why; one read per namespace; an available one reads nothing', async () => {
  const { after, calls } = await run(
    [dep('a', 'one', 0), dep('b', 'one', 0), dep('c', 'two', 3)],
    new Map([['one', { kind: 'pods', pods: [unschedulable('a-1', 'a')] }]]),
  );
  assert.deepEqual(calls, [['one']], 'the namespace of both read once, the available one not');
  const [a, b, c] = after;
  assert.equal(a?.message, 'not available (rule s/avail); pod a-1: Unschedulable: no node fits');
  assert.equal(a?.state, 'Progressing');
  assert.equal(a?.rule, 's/avail');
  assert.equal(b?.message, 'not available (rule s/avail)', 'no Pod of b says anything');
  assert.equal(c?.state, 'Healthy');
  assert.equal(c?.message, 'healthy (rule s/avail)');
});

it('all available: the Pods are asked for no namespace, so their watches may stop', async () => {
  const { calls } = await run([dep('a', 'one', 3)], new Map());
  assert.deepEqual(calls, [[]]);
});

it('a workload not available for less than EXPLAIN_AFTER_MS reads no Pods yet', async () => {
  const pods = new Map([['one', { kind: 'pods' as const, pods: [unschedulable('a-1', 'a')] }]]);
  for (const anchor of ['', '2030-01-01T00:09:57Z']) {
    const { after, calls } = await run([dep('a', 'one', 0)], pods, anchor);
    assert.deepEqual(calls, [[]], `anchor ${anchor}`);
    assert.equal(after[0]?.message, 'not available (rule s/avail)');
  }
});

it('a failed read of the Pods is said, not swallowed', async () => {
  const { after } = await run(
    [dep('a', 'one', 0)],
    new Map([['one', { kind: 'error', message: 'Pods not read: forbidden' }]]),
  );
  assert.equal(after[0]?.message, 'not available (rule s/avail); Pods not read: forbidden');
  assert.equal(after[0]?.state, 'Progressing');
});
