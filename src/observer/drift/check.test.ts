// checkDrift while the controller applies a new render: an entry whose key is noted in `pending` for
// another render is in sync when its live object is either render's (the apply may or may not have
// reached it), and drifted when it is neither's. Over an injected client that answers GETs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2 } from '../../api/testsupport.ts';
import type { InventoryEntry, PendingEntry } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import type { Obj, Render } from '../../render/types.ts';
import { checkDrift, inFlightRenders, judgeEntry, unchangedSinceApply } from './check.ts';

const LABEL = 'ns.app';

const cm = (v: string): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'ns' },
  data: { v },
});
const live = (v: string) => ({
  ...cm(v),
  metadata: { name: 'cfg', namespace: 'ns', labels: { 'convoy.kumodo.io/release': LABEL }, uid: 'u1' },
});
const entry: InventoryEntry = { group: '', kind: 'ConfigMap', namespace: 'ns', name: 'cfg', renderRef: R1 };
const pendingR2: PendingEntry = { group: '', kind: 'ConfigMap', namespace: 'ns', name: 'cfg', renderRef: R2 };
const renders: Record<string, Render> = {
  [R1]: { hooks: [], objects: [cm('1')] },
  [R2]: { hooks: [], objects: [cm('2')] },
};

async function check(liveValue: string, pending: readonly PendingEntry[]) {
  const client = { get: async () => live(liveValue) } as unknown as KubeClient;
  const c = await checkDrift(
    [entry],
    {
      resolveTarget: async () => ({ kind: 'local', client }) as never,
      render: async (ref) => renders[ref],
      releaseLabel: LABEL,
    },
    pending,
  );
  assert.equal(c.outcome.kind, 'checked');
  const e = c.outcome.kind === 'checked' ? c.outcome.entries[0] : undefined;
  return e?.kind === 'checked' ? e.result.kind : e?.kind;
}

test('an entry being applied for a new render: either render live is in sync, neither is drift', async () => {
  const cases: readonly [string, string, readonly PendingEntry[], string][] = [
    ['recorded render live, nothing pending', '1', [], 'inSync'],
    [
      'the new render live before the entry is recorded (the false drift of every rollout)',
      '2',
      [pendingR2],
      'inSync',
    ],
    ['the recorded render still live while the apply is on its way', '1', [pendingR2], 'inSync'],
    ['neither render live', '3', [pendingR2], 'drifted'],
    ['the new render live but nothing pending: someone else changed it', '2', [], 'drifted'],
  ];
  for (const [name, value, pending, want] of cases) assert.equal(await check(value, pending), want, name);
});

test('inFlightRenders: only keys recorded with another render than the pending one', () => {
  const other: PendingEntry = { ...pendingR2, name: 'new-object' };
  const same: PendingEntry = { ...pendingR2, renderRef: R1 };
  assert.deepEqual([...inFlightRenders([entry], [pendingR2, other]).values()], [R2]);
  assert.equal(inFlightRenders([entry], [same]).size, 0);
  assert.equal(inFlightRenders([entry], [other]).size, 0);
});

test('judgeEntry: a deleted object is never excused by the render being applied', () => {
  assert.equal(judgeEntry(cm('1'), cm('2'), undefined).kind, 'deleted');
  assert.equal(judgeEntry(cm('1'), undefined, live('2')).kind, 'drifted');
});

test('an object unchanged since convoy applied it is in sync without its render; a changed one is compared', async () => {
  const applied: InventoryEntry = { ...entry, appliedResourceVersion: '10' };
  const at = (v: string, resourceVersion: string) => ({
    ...live(v),
    metadata: { ...live(v).metadata, resourceVersion },
  });
  const run = async (liveObject: Obj, pending: readonly PendingEntry[] = []) => {
    const asked: string[] = [];
    const client = { get: async () => liveObject } as unknown as KubeClient;
    const c = await checkDrift(
      [applied],
      {
        resolveTarget: async () => ({ kind: 'local', client }) as never,
        render: async (ref) => {
          asked.push(ref);
          return renders[ref];
        },
        releaseLabel: LABEL,
      },
      pending,
    );
    const e = c.outcome.kind === 'checked' ? c.outcome.entries[0] : undefined;
    return { result: e?.kind === 'checked' ? e.result.kind : e?.kind, renders: asked };
  };
  // Even a value the render does not hold: the apply of R1 returned version 10, and nothing changed since.
  assert.deepEqual(await run(at('1', '10')), { result: 'inSync', renders: [] });
  assert.deepEqual(await run(at('9', '11')), { result: 'drifted', renders: [R1] }, 'changed since: compared');
  assert.deepEqual(
    await run(at('1', '10'), [pendingR2]),
    { result: 'inSync', renders: [R1, R2] },
    'being applied for R2: compared with both renders',
  );
});

test('unchangedSinceApply', () => {
  const found = (resourceVersion?: string) =>
    ({
      kind: 'found',
      object: { ...live('1'), metadata: { ...live('1').metadata, resourceVersion } },
    }) as const;
  const applied: InventoryEntry = { ...entry, appliedResourceVersion: '10' };
  const rows: [string, InventoryEntry, Parameters<typeof unchangedSinceApply>[1], boolean, boolean][] = [
    ['same version', applied, found('10'), false, true],
    ['a newer version', applied, found('11'), false, false],
    ['no version recorded', entry, found('10'), false, false],
    ['in flux', applied, found('10'), true, false],
    ['absent', applied, { kind: 'absent' }, false, false],
    ['read failed', applied, { kind: 'error', message: 'forbidden' }, false, false],
  ];
  for (const [name, e, read, inFlux, want] of rows)
    assert.equal(unchangedSinceApply(e, read, inFlux), want, name);
});
