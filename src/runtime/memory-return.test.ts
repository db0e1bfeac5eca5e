// When the process gives memory back: growth outside the heap's spaces, at most once per RETURN_MIN_GAP_MS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outsideHeap, RETURN_GROWTH_BYTES, RETURN_MIN_GAP_MS, returnDecision } from './memory-return.ts';

const MIB = 1024 * 1024;
const sample = (rssMib: number, heapMib = 50, externalMib = 10) => ({
  rss: rssMib * MIB,
  heapTotal: heapMib * MIB,
  external: externalMib * MIB,
});

test('outsideHeap is RSS less the heap spaces and the buffers, never below 0', () => {
  assert.equal(outsideHeap(sample(160)), 100 * MIB);
  assert.equal(outsideHeap(sample(40)), 0);
});

test('returnDecision: grown enough and long enough since the last return', () => {
  const lowest = 100 * MIB;
  const long = RETURN_MIN_GAP_MS;
  const rows: ReadonlyArray<readonly [string, number, number, 'trim' | 'wait']> = [
    ['grown by the threshold', 160 + RETURN_GROWTH_BYTES / MIB, long, 'trim'],
    ['grown by less', 160 + RETURN_GROWTH_BYTES / MIB - 1, long, 'wait'],
    ['not grown', 160, long, 'wait'],
    ['grown but the last return was too recent', 400, long - 1, 'wait'],
  ];
  for (const [name, rssMib, sinceMs, want] of rows)
    assert.equal(
      returnDecision(sample(rssMib), { lowest, lastReturnMs: 0, requested: false }, sinceMs),
      want,
      name,
    );
});

test('returnDecision: a heap that shrank counts as growth outside it (its freed pages stay resident)', () => {
  const before = outsideHeap(sample(300, 150));
  assert.equal(
    returnDecision(
      sample(300, 100),
      { lowest: before, lastReturnMs: 0, requested: false },
      RETURN_MIN_GAP_MS,
    ),
    'trim',
  );
});

test('returnDecision: a request collects (GC, then trim) without growth, once the gap allows', () => {
  const state = { lowest: outsideHeap(sample(160)), lastReturnMs: 0, requested: true };
  assert.equal(returnDecision(sample(400), state, RETURN_MIN_GAP_MS), 'collect');
  assert.equal(returnDecision(sample(160), state, RETURN_MIN_GAP_MS), 'collect');
  assert.equal(returnDecision(sample(160), state, RETURN_MIN_GAP_MS - 1), 'wait');
});
