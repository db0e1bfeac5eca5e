import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2 } from '../../../../api/testsupport.ts';
import type { WaveStatus } from '../../../../api/types.ts';
import { recordWaveStart } from './wave-records.ts';

const T1 = '2030-01-01T00:00:01Z';
const T2 = '2030-01-01T00:00:02Z';

const cases: { name: string; before: WaveStatus[]; ref: string; wave: number; want: WaveStatus[] }[] = [
  {
    name: 'first wave of a render',
    before: [],
    ref: R1,
    wave: 0,
    want: [{ renderRef: R1, wave: 0, startedAt: T2 }],
  },
  {
    name: 'a started wave keeps its startedAt',
    before: [{ renderRef: R1, wave: 0, startedAt: T1 }],
    ref: R1,
    wave: 0,
    want: [{ renderRef: R1, wave: 0, startedAt: T1 }],
  },
  {
    name: 'waves stay sorted, negative ones first',
    before: [{ renderRef: R1, wave: 1, startedAt: T1 }],
    ref: R1,
    wave: -1,
    want: [
      { renderRef: R1, wave: -1, startedAt: T2 },
      { renderRef: R1, wave: 1, startedAt: T1 },
    ],
  },
  {
    name: 'a new render drops the old render’s records',
    before: [
      { renderRef: R1, wave: 0, startedAt: T1, completedAt: T1 },
      { renderRef: R1, wave: 1, startedAt: T1 },
    ],
    ref: R2,
    wave: 0,
    want: [{ renderRef: R2, wave: 0, startedAt: T2 }],
  },
  {
    name: 'leftovers of another render are dropped even when this wave was stamped',
    before: [
      { renderRef: R1, wave: 0, startedAt: T1 },
      { renderRef: R2, wave: 0, startedAt: T1 },
    ],
    ref: R2,
    wave: 0,
    want: [{ renderRef: R2, wave: 0, startedAt: T1 }],
  },
];
for (const c of cases) {
  test(`recordWaveStart: ${c.name}`, () =>
    assert.deepEqual(recordWaveStart(c.before, c.ref, c.wave, T2), c.want));
}

test('recordWaveStart: unchanged input comes back as the same array', () => {
  const before: WaveStatus[] = [{ renderRef: R1, wave: 0, startedAt: T1 }];
  assert.equal(recordWaveStart(before, R1, 0, T2), before);
});
