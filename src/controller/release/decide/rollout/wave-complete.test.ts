// Table tests of completeWaves (status.waves[].completedAt).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entry, obj, R1, R2 } from './fixtures.ts';
import type { WaveStatus } from './types.ts';
import { completeWaves } from './wave-complete.ts';

const NOW = '2025-06-01T12:05:00Z';
const w = (wave: number, renderRef = R2, completedAt?: string): WaveStatus => ({
  renderRef,
  wave,
  startedAt: '2025-06-01T12:00:00Z',
  ...(completedAt === undefined ? {} : { completedAt }),
});

describe('completeWaves', () => {
  test('every entry of the wave Healthy for its render: completedAt stamped', () => {
    const waves = [w(0), w(1)];
    const entries = [entry(obj('a'), R2, 'Healthy', 0), entry(obj('b'), R2, 'Progressing', 1)];
    assert.deepEqual(completeWaves(waves, entries, NOW), [{ ...w(0), completedAt: NOW }, w(1)]);
  });

  const unchanged: [string, WaveStatus[], ReturnType<typeof entry>[]][] = [
    [
      'an entry still Progressing',
      [w(0)],
      [entry(obj('a'), R2, 'Healthy'), entry(obj('b'), R2, 'Progressing')],
    ],
    [
      'Healthy but assessed for the previous render',
      [w(0)],
      [{ ...entry(obj('a'), R2, 'Healthy'), assessedRenderRef: R1 }],
    ],
    ['entries of another render only', [w(0)], [entry(obj('a'), R1, 'Healthy')]],
    ['no entry in that wave', [w(1)], [entry(obj('a'), R2, 'Healthy', 0)]],
    [
      'already completed, now unhealthy: kept',
      [w(0, R2, '2025-06-01T12:01:00Z')],
      [entry(obj('a'), R2, 'Degraded')],
    ],
    ['Unknown health', [w(0)], [entry(obj('a'), R2, 'Unknown')]],
  ];
  for (const [name, waves, entries] of unchanged) {
    test(`unchanged (same array): ${name}`, () => assert.equal(completeWaves(waves, entries, NOW), waves));
  }
});
