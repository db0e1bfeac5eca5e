import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry, InventoryKey, ReleaseStatus } from '../../api/types.ts';
import type { DriftResult } from './detect.ts';
import {
  type CheckOutcome,
  DEFAULT_DRIFT_INTERVAL_MS,
  decideHeal,
  driftedCondition,
  driftStatusBody,
  driftStatusDue,
  driftStatusUpToDate,
  type EntryOutcome,
  type HealInput,
  inventoryDriftChanged,
  inventoryDriftItems,
  MAX_HEAL_REQUESTS,
  newlyDrifted,
  nextDelayMs,
} from './plan.ts';

const key = (kind: string, name: string): InventoryKey => ({
  group: kind === 'Deployment' ? 'apps' : '',
  kind,
  namespace: 'prod',
  name,
});
const checked = (entry: InventoryKey, result: DriftResult): EntryOutcome => ({
  kind: 'checked',
  entry,
  result,
});
const inSync = (kind: string, name: string) => checked(key(kind, name), { kind: 'inSync' });
const scaled = (name: string, from: number, to: number) =>
  checked(key('Deployment', name), {
    kind: 'drifted',
    differences: [{ kind: 'changed', path: 'spec.replicas', desired: from, live: to }],
  });
const deleted = (kind: string, name: string) => checked(key(kind, name), { kind: 'deleted' });
const unknown = (kind: string, name: string, reason: string): EntryOutcome => ({
  kind: 'unknown',
  entry: key(kind, name),
  reason,
});
const cached = (kind: string, name: string, over: Partial<InventoryEntry> = {}): InventoryEntry => ({
  ...key(kind, name),
  renderRef: 'sha256:a',
  ...over,
});

test('inventoryDriftItems: drifted entries get drifted and a message, in-sync ones are left out (absent fields), unknown ones keep theirs', () => {
  const items = inventoryDriftItems(
    [cached('ConfigMap', 'old', { drifted: true, driftMessage: 'deleted' }), cached('ConfigMap', 'fresh')],
    [
      inSync('ConfigMap', 'a'),
      scaled('web', 3, 5),
      deleted('Service', 'svc'),
      unknown('ConfigMap', 'old', 'read failed'),
      unknown('ConfigMap', 'fresh', 'read failed'),
    ],
  );
  assert.deepEqual(items, [
    { ...key('Deployment', 'web'), drifted: true, driftMessage: 'spec.replicas: 3 → 5' },
    { ...key('Service', 'svc'), drifted: true, driftMessage: 'deleted' },
    { ...key('ConfigMap', 'old'), drifted: true, driftMessage: 'deleted' },
  ]);
});

test('inventoryDriftChanged: only a value that differs, a new entry, or a field the write would drop', () => {
  const items = [
    { ...key('ConfigMap', 'a'), drifted: false },
    { ...key('Deployment', 'web'), drifted: true, driftMessage: 'spec.replicas: 3 → 5' },
  ];
  const same = [
    cached('ConfigMap', 'a', { drifted: false }),
    cached('Deployment', 'web', { drifted: true, driftMessage: 'spec.replicas: 3 → 5' }),
  ];
  const cases: [string, InventoryEntry[], boolean][] = [
    ['steady', same, false],
    [
      'steady, with an entry this loop never wrote',
      [...same, cached('ConfigMap', 'x', { renderRef: undefined })],
      false,
    ],
    ['never written', [cached('ConfigMap', 'a'), cached('Deployment', 'web')], true],
    [
      'message changed',
      [same[0] as InventoryEntry, cached('Deployment', 'web', { drifted: true, driftMessage: 'deleted' })],
      true,
    ],
    [
      'cleared',
      [cached('ConfigMap', 'a', { drifted: true, driftMessage: 'deleted' }), same[1] as InventoryEntry],
      true,
    ],
    [
      'an entry the write would release',
      [...same, cached('ConfigMap', 'gone', { renderRef: undefined, drifted: true })],
      true,
    ],
    ['an entry not cached yet', [same[0] as InventoryEntry], true],
  ];
  for (const [name, c, want] of cases) assert.equal(inventoryDriftChanged(c, items), want, name);
});

test('newlyDrifted: the edge is an entry drifted now that was not before', () => {
  const items = [
    { ...key('ConfigMap', 'a'), drifted: true, driftMessage: 'x' },
    { ...key('ConfigMap', 'b'), drifted: true, driftMessage: 'x' },
    { ...key('ConfigMap', 'c'), drifted: false },
  ];
  const prior = [
    cached('ConfigMap', 'a', { drifted: true }),
    cached('ConfigMap', 'b', { drifted: false }),
    cached('ConfigMap', 'c', { drifted: true }),
  ];
  assert.deepEqual(newlyDrifted(prior, items), ['/ConfigMap/prod/b']);
  assert.deepEqual(newlyDrifted(prior.slice(0, 1), items.slice(0, 1)), []);
});

test('driftedCondition: True names the objects and paths, False when in sync, Unknown when not readable', () => {
  const cases: [string, CheckOutcome, object][] = [
    [
      'drifted',
      {
        kind: 'checked',
        entries: [
          scaled('web', 3, 5),
          inSync('ConfigMap', 'a'),
          deleted('Service', 'svc'),
          unknown('ConfigMap', 'b', 'forbidden'),
        ],
      },
      {
        status: 'True',
        reason: 'Drifted',
        message: '2 of 4 objects drifted: Deployment web (spec.replicas: 3 → 5), Service svc (deleted)',
        summary: { drifted: 2, total: 4 },
      },
    ],
    [
      'many',
      {
        kind: 'checked',
        entries: [
          scaled('a', 1, 2),
          scaled('b', 1, 2),
          scaled('c', 1, 2),
          scaled('d', 1, 2),
          scaled('e', 1, 2),
        ],
      },
      {
        status: 'True',
        reason: 'Drifted',
        message:
          '5 of 5 objects drifted: Deployment a (spec.replicas: 1 → 2), Deployment b (spec.replicas: 1 → 2), Deployment c (spec.replicas: 1 → 2), and 2 more',
        summary: { drifted: 5, total: 5 },
      },
    ],
    [
      'in sync',
      { kind: 'checked', entries: [inSync('ConfigMap', 'a'), inSync('ConfigMap', 'b')] },
      {
        status: 'False',
        reason: 'InSync',
        message: '2 of 2 objects in sync',
        summary: { drifted: 0, total: 2 },
      },
    ],
    [
      'nothing applied',
      { kind: 'checked', entries: [] },
      { status: 'False', reason: 'InSync', message: 'no objects applied', summary: { drifted: 0, total: 0 } },
    ],
    [
      'some not readable, none drifted',
      {
        kind: 'checked',
        entries: [inSync('ConfigMap', 'a'), unknown('ConfigMap', 'b', 'read failed: forbidden')],
      },
      {
        status: 'Unknown',
        reason: 'DriftCheckFailed',
        message: '1 of 2 objects could not be checked: ConfigMap b (read failed: forbidden)',
        summary: { drifted: 0, total: 2 },
      },
    ],
    [
      'target unreachable keeps the previous summary',
      { kind: 'failed', message: 'target cluster unreachable: ECONNREFUSED' },
      {
        status: 'Unknown',
        reason: 'DriftCheckFailed',
        message: 'target cluster unreachable: ECONNREFUSED',
        summary: { drifted: 1, total: 3 },
      },
    ],
  ];
  for (const [name, outcome, want] of cases)
    assert.deepEqual(driftedCondition(outcome, { drifted: 1, total: 3 }), want, name);
});

test('driftStatusBody keeps lastTransitionTime while the status holds; driftStatusUpToDate skips steady writes', () => {
  const cond = driftedCondition({ kind: 'checked', entries: [inSync('ConfigMap', 'a')] }, undefined);
  const first = driftStatusBody(cond, undefined, 3, 'T1');
  assert.equal(first.conditions[0]?.lastTransitionTime, 'T1');
  assert.equal(driftStatusUpToDate(undefined, first), false);
  const stored: ReleaseStatus = { conditions: [...first.conditions], driftSummary: first.driftSummary };
  const again = driftStatusBody(cond, stored, 3, 'T2');
  assert.deepEqual(again, first, 'same status: the old transition time');
  assert.equal(driftStatusUpToDate(stored, again), true);
  assert.equal(driftStatusUpToDate(stored, driftStatusBody(cond, stored, 4, 'T2')), false, 'new generation');
  const drifted = driftedCondition({ kind: 'checked', entries: [scaled('web', 3, 5)] }, undefined);
  const flipped = driftStatusBody(drifted, stored, 3, 'T3');
  assert.equal(flipped.conditions[0]?.lastTransitionTime, 'T3');
  assert.equal(driftStatusUpToDate(stored, flipped), false);
});

test('decideHeal: ask on the edge, again while the controller has not re-applied, never in a loop', () => {
  const base: HealInput = { selfHeal: true, drifted: 1, newlyDrifted: 0, attemptAt: 'T0', prior: undefined };
  const first = { attemptAt: 'T0', requests: 1, unsent: false, settled: false };
  const cases: [string, HealInput, object][] = [
    ['no selfHeal', { ...base, selfHeal: false, newlyDrifted: 1 }, { kind: 'none' }],
    ['nothing drifted', { ...base, drifted: 0, prior: first }, { kind: 'none' }],
    ['the edge', { ...base, newlyDrifted: 1 }, { kind: 'request', state: first }],
    ['drifted with no heal on record (selfHeal just turned on)', base, { kind: 'request', state: first }],
    [
      'the controller has not re-applied yet',
      { ...base, prior: first },
      { kind: 'request', state: { ...first, requests: 2 } },
    ],
    [
      'asked often enough',
      { ...base, prior: { ...first, requests: MAX_HEAL_REQUESTS } },
      { kind: 'wait', state: { ...first, requests: MAX_HEAL_REQUESTS } },
    ],
    [
      're-applied and still drifted: settled',
      { ...base, attemptAt: 'T1', prior: first },
      { kind: 'wait', state: { ...first, settled: true } },
    ],
    [
      'settled stays settled',
      { ...base, attemptAt: 'T2', prior: { ...first, settled: true } },
      { kind: 'wait', state: { ...first, settled: true } },
    ],
    [
      'the last request failed',
      { ...base, attemptAt: 'T1', prior: { ...first, unsent: true } },
      { kind: 'request', state: first },
    ],
    [
      'a new edge starts over',
      { ...base, newlyDrifted: 1, attemptAt: 'T1', prior: { ...first, requests: 4, settled: true } },
      { kind: 'request', state: { attemptAt: 'T1', requests: 1, unsent: false, settled: false } },
    ],
  ];
  for (const [name, input, want] of cases) assert.deepEqual(decideHeal(input), want, name);
});

test('nextDelayMs: the flag, else the interval, else 5m; sooner while a heal is awaited or after a failure', () => {
  const r = () => 0;
  assert.equal(
    nextDelayMs({ flagMs: undefined, intervalMs: undefined, urgentAttempts: 0, random: r }),
    DEFAULT_DRIFT_INTERVAL_MS,
  );
  assert.equal(nextDelayMs({ flagMs: undefined, intervalMs: 60_000, urgentAttempts: 0, random: r }), 60_000);
  assert.equal(nextDelayMs({ flagMs: 10_000, intervalMs: 60_000, urgentAttempts: 0, random: r }), 10_000);
  assert.equal(nextDelayMs({ flagMs: undefined, intervalMs: 60_000, urgentAttempts: 1, random: r }), 2_000);
  assert.equal(nextDelayMs({ flagMs: undefined, intervalMs: 60_000, urgentAttempts: 3, random: r }), 8_000);
  assert.equal(
    nextDelayMs({ flagMs: 5_000, intervalMs: undefined, urgentAttempts: 9, random: r }),
    5_000,
    'capped',
  );
});

test('driftStatusDue: nothing is written before there is anything to compare', () => {
  const drifted = {
    type: 'Drifted',
    status: 'False' as const,
    reason: 'InSync',
    message: '',
    lastTransitionTime: 't',
  };
  const attempted = { lastAttempted: { renderRef: 'sha256:a', time: 't', applied: true, revision: 'r' } };
  const rows: [string, Parameters<typeof driftStatusDue>[0], boolean, boolean][] = [
    ['a new Release: no attempt, no condition', undefined, false, false],
    ['an empty status', {}, false, false],
    ['entries recorded, the attempt not reported yet', { conditions: [] }, false, false],
    ['attempted (an empty render is in sync)', attempted, false, true],
    ['attempted, the record of its first wave in flight', attempted, true, false],
    ['a Drifted condition to keep current', { conditions: [drifted] }, false, true],
    ['a Drifted condition, a record in flight', { conditions: [drifted] }, true, false],
  ];
  for (const [name, status, inFlight, want] of rows)
    assert.equal(driftStatusDue(status, inFlight), want, name);
});
