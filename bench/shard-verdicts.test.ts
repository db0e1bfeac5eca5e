// bench:shards' counts: how a Release ended (the first ending that holds), the ConfigMap applies
// kube-apiserver served read off its metrics, pending notes, and the replicas' shares.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release, ReleaseStatus } from '../src/api/types.ts';
import { apiserverApplies, type Ending, ending, endings, pendingKeys, shares } from './shard-verdicts.ts';

const cond = (type: string, status: 'True' | 'False', reason: string) => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const at = '2026-01-01T00:00:00Z';
const good: ReleaseStatus = {
  conditions: [cond('Ready', 'True', 'Synced'), cond('Healthy', 'True', 'Healthy')],
  lastAttempted: { renderRef: 'r1', revision: 'v1', time: at } as ReleaseStatus['lastAttempted'],
  lastSuccessful: { renderRef: 'r1', revision: 'v1', time: at },
  lastHealthy: { renderRef: 'r1', revision: 'v1', time: at },
};
const rel = (name: string, status: ReleaseStatus | undefined): Release =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name, namespace: 'ns' },
    spec: {},
    ...(status === undefined ? {} : { status }),
  }) as unknown as Release;

test('ending: the first ending that holds', () => {
  const rollout = (state: 'Progressing' | 'Succeeded' | 'RolledBack' | 'Failed') => ({
    ...good,
    rollout: { state, renderRef: 'r1' },
  });
  const table: readonly [string, ReleaseStatus | undefined, Ending][] = [
    ['all good', good, 'ok'],
    ['rollout Succeeded', rollout('Succeeded'), 'ok'],
    ['no status', undefined, 'notReady'],
    [
      'Ready False',
      { ...good, conditions: [cond('Ready', 'False', 'x'), cond('Healthy', 'True', 'Healthy')] },
      'notReady',
    ],
    [
      'Healthy of nothing applied',
      { ...good, conditions: [cond('Ready', 'True', 'Synced'), cond('Healthy', 'True', 'NothingApplied')] },
      'notHealthy',
    ],
    ['no lastAttempted', { ...good, lastAttempted: undefined }, 'notHealthy'],
    ['no lastHealthy', { ...good, lastHealthy: undefined }, 'noLastHealthy'],
    [
      'lastHealthy of another render',
      { ...good, lastHealthy: { renderRef: 'r0', revision: 'v0', time: at } },
      'noLastHealthy',
    ],
    ['rolled back, though Ready', rollout('RolledBack'), 'rolledBack'],
    ['failed', rollout('Failed'), 'failed'],
    ['stuck Progressing', rollout('Progressing'), 'stuckProgressing'],
    [
      'a rolled back render in the history',
      { ...good, history: [{ renderRef: 'r0', revision: 'v0', result: 'RolledBack' }] },
      'rolledBack',
    ],
  ];
  for (const [what, status, want] of table) assert.equal(ending(rel(what, status)), want, what);
});

test('endings: every ending counted, a few names of each but ok', () => {
  const out = endings([rel('a', good), rel('b', undefined), rel('c', undefined), rel('d', good)], 1);
  assert.equal(out.counts.ok, 2);
  assert.equal(out.counts.notReady, 2);
  assert.equal(out.counts.rolledBack, 0);
  assert.deepEqual(out.examples, { notReady: ['ns/b'] });
});

test('apiserverApplies: real applies of the resource by 2xx, dry runs, failures by code', () => {
  const line = (verb: string, resource: string, dry: string, code: string, n: number, sub = '') =>
    `apiserver_request_total{code="${code}",component="apiserver",dry_run="${dry}",group="",resource="${resource}",scope="resource",subresource="${sub}",verb="${verb}",version="v1"} ${n}`;
  const text = [
    '# HELP apiserver_request_total x',
    line('APPLY', 'configmaps', '', '200', 7),
    line('APPLY', 'configmaps', '', '201', 3),
    line('APPLY', 'configmaps', 'All', '200', 10),
    line('APPLY', 'configmaps', '', '409', 2),
    line('APPLY', 'configmaps', '', '500', 1),
    line('PATCH', 'configmaps', '', '200', 5),
    line('APPLY', 'secrets', '', '200', 4),
    line('APPLY', 'configmaps', '', '200', 6, 'status'),
    'apiserver_request_total_other{verb="APPLY",resource="configmaps",subresource="",dry_run="",code="200"} 9',
  ].join('\n');
  assert.deepEqual(apiserverApplies(text, 'configmaps'), {
    applies: 10,
    dryRuns: 10,
    failed: { '409': 2, '500': 1 },
  });
  assert.deepEqual(apiserverApplies('', 'configmaps'), { applies: 0, dryRuns: 0, failed: {} });
});

test('pendingKeys: pending notes of one kind over inventories', () => {
  const p = (kind: string) => ({ group: '', kind, namespace: 'ns', name: 'x' });
  assert.equal(
    pendingKeys([{ pending: [p('ConfigMap'), p('Secret')] }, {}, { pending: [p('ConfigMap')] }], 'ConfigMap'),
    2,
  );
  assert.equal(pendingKeys([], 'ConfigMap'), 0);
});

test('shares: parts of the total and the largest over the even share', () => {
  assert.deepEqual(shares({ a: 50, b: 50 }), { parts: { a: 0.5, b: 0.5 }, maxOverEven: 1 });
  assert.deepEqual(shares({ a: 75, b: 25 }), { parts: { a: 0.75, b: 0.25 }, maxOverEven: 1.5 });
  assert.deepEqual(shares({ a: 0, b: 0 }), { parts: {}, maxOverEven: 0 });
  assert.deepEqual(shares({}), { parts: {}, maxOverEven: 0 });
});
