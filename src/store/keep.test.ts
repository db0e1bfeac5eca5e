import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gcDue, type KeepSpec, type KeepStatus, mayBeStored, namesRender, rendersToKeep } from './keep.ts';

const h = (renderRef: string, appliedAt: string) => ({ renderRef, appliedAt });
const t = (n: number) => `2030-01-01T00:00:${String(n).padStart(2, '0')}Z`;

const cases: { name: string; status: KeepStatus; spec: KeepSpec; want: string[] }[] = [
  { name: 'empty status keeps nothing', status: {}, spec: {}, want: [] },
  {
    name: 'historyLimit newest by appliedAt, whatever the list order',
    status: { history: [h('c', t(3)), h('a', t(1)), h('d', t(4)), h('b', t(2))] },
    spec: { historyLimit: 2 },
    want: ['c', 'd'],
  },
  {
    name: 'default limit is 10',
    status: { history: Array.from({ length: 12 }, (_, i) => h(`r${i}`, t(i))) },
    spec: {},
    want: Array.from({ length: 10 }, (_, i) => `r${i + 2}`).sort(),
  },
  {
    name: 'a ref applied twice counts once toward the limit',
    status: { history: [h('a', t(1)), h('b', t(2)), h('a', t(3))] },
    spec: { historyLimit: 2 },
    want: ['a', 'b'],
  },
  {
    name: 'equal times: the later entry is newer',
    status: { history: [h('a', t(1)), h('b', t(1))] },
    spec: { historyLimit: 1 },
    want: ['b'],
  },
  {
    name: 'lastHealthy, lastSuccessful, lastAttempted and the pin survive outside the limit',
    status: {
      history: [h('old', t(1)), h('new', t(2))],
      lastHealthy: { renderRef: 'healthy' },
      lastSuccessful: { renderRef: 'ok' },
      lastAttempted: { renderRef: 'tried' },
    },
    spec: { historyLimit: 1, pin: { renderRef: 'pinned' } },
    want: ['healthy', 'new', 'ok', 'pinned', 'tried'],
  },
  {
    name: 'historyLimit 0 keeps only the referenced renders',
    status: { history: [h('a', t(1))], lastHealthy: { renderRef: 'a' }, lastSuccessful: {} },
    spec: { historyLimit: 0, pin: { renderRef: '' } },
    want: ['a'],
  },
  {
    name: 'a negative historyLimit acts as 0',
    status: { history: [h('a', t(1))] },
    spec: { historyLimit: -3 },
    want: [],
  },
];

for (const c of cases) {
  test(`rendersToKeep: ${c.name}`, () => {
    assert.deepEqual([...rendersToKeep(c.status, c.spec)].sort(), c.want);
  });
}

test('gcDue: what this process knows may be stored against what is kept', () => {
  const set = (...xs: string[]) => new Set(xs);
  const rows: { name: string; mayBeStored: Set<string> | undefined; keep: Set<string>; want: boolean }[] = [
    { name: 'not collected by this process yet', mayBeStored: undefined, keep: set('a'), want: true },
    {
      name: 'every render that may be stored is kept',
      mayBeStored: set('a', 'b'),
      keep: set('a', 'b', 'c'),
      want: false,
    },
    { name: 'a render left the kept set', mayBeStored: set('a', 'b'), keep: set('b', 'c'), want: true },
    {
      name: 'a render put since the last gc is not kept',
      mayBeStored: set('a', 'x'),
      keep: set('a'),
      want: true,
    },
    { name: 'nothing stored, nothing kept', mayBeStored: set(), keep: set(), want: false },
  ];
  for (const r of rows) assert.equal(gcDue(r.mayBeStored, r.keep), r.want, r.name);
});

test('namesRender: a render the status names anywhere gc keeps from', () => {
  const rows: { name: string; status: KeepStatus | undefined; want: boolean }[] = [
    { name: 'no status', status: undefined, want: false },
    { name: 'empty status', status: {}, want: false },
    { name: 'in history', status: { history: [h('r', t(1))] }, want: true },
    { name: 'lastAttempted', status: { lastAttempted: { renderRef: 'r' } }, want: true },
    { name: 'lastHealthy', status: { lastHealthy: { renderRef: 'r' } }, want: true },
    { name: 'lastSuccessful', status: { lastSuccessful: { renderRef: 'r' } }, want: true },
    {
      name: 'other renders only',
      status: { history: [h('q', t(1))], lastAttempted: { renderRef: 'p' } },
      want: false,
    },
  ];
  for (const r of rows) assert.equal(namesRender(r.status, 'r'), r.want, r.name);
});

test('mayBeStored: what the process knows, else only the applied render of a never-attempted Release', () => {
  const known = new Set(['a']);
  assert.equal(mayBeStored(known, { history: [h('x', t(1))] }, 'b'), known, 'known wins');
  assert.deepEqual(mayBeStored(undefined, undefined, 'b'), new Set(['b']), 'no status: never attempted');
  assert.deepEqual(mayBeStored(undefined, {}, 'b'), new Set(['b']));
  assert.equal(mayBeStored(undefined, { history: [h('x', t(1))] }, 'b'), undefined, 'attempted: unknown');
  assert.equal(mayBeStored(undefined, { lastAttempted: { renderRef: 'x' } }, 'b'), undefined);
});
