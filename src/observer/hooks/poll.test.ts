// pollHooks over a client that records each request and reaches no server (docs/design.md#hook-polling):
// a polling error is logged, not returned, and the hooks that were due stay pending targets.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InventoryHook, ReleaseInventory } from '../../api/types.ts';
import { RecordingClient, recordingLogger } from '../client-testsupport.ts';
import { pollHooks } from './poll.ts';

const hook = (name: string, extra: Partial<InventoryHook> = {}): InventoryHook => ({
  name,
  phase: 'PreSync',
  kind: 'Job',
  workloadName: `${name}-a`,
  namespace: 'ns',
  createdAt: '2030-01-01T00:00:00Z',
  ...extra,
});

const inventory = (hooks: InventoryHook[]): ReleaseInventory => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'ReleaseInventory',
  metadata: { name: 'web', namespace: 'ns', uid: 'u', resourceVersion: '1' },
  hooks,
});

it('H21 "A polling error is logged, not returned": the due hooks are rechecked, nothing is written', async () => {
  const target = new RecordingClient();
  const local = new RecordingClient();
  const { log, lines } = recordingLogger();
  const finished = hook('done', { state: 'Succeeded', finishedAt: '2030-01-01T00:01:00Z' });
  const result = await pollHooks(inventory([hook('pre'), finished]), {
    target: async () => target,
    local,
    workloadNamespace: 'ns',
    now: () => new Date('2030-01-01T00:02:00Z'),
    log,
  });
  assert.ok(target.requests.length > 0, 'the workload was asked for');
  assert.deepEqual(result, { written: undefined, finished: [], running: ['pre'], polled: 0 });
  assert.deepEqual(local.requests, [], 'no hook status is written');
  const warned = lines.filter((l) => l.msg === 'polling hooks failed');
  assert.equal(warned.length, 1, JSON.stringify(lines));
  assert.match(String(warned[0]?.err), /no API server in this test/);
});

it('H21: resolving the target cluster failing is a polling error too', async () => {
  const { log, lines } = recordingLogger();
  const result = await pollHooks(inventory([hook('pre')]), {
    target: async () => {
      throw new Error('Cluster ns/far is not ready');
    },
    local: new RecordingClient(),
    workloadNamespace: 'ns',
    now: () => new Date('2030-01-01T00:02:00Z'),
    log,
  });
  assert.deepEqual(result.running, ['pre']);
  assert.ok(lines.some((l) => l.msg === 'polling hooks failed' && String(l.err).includes('not ready')));
});
