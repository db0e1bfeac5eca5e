// Which of convoy's processes the UI calls down, by table over their shard Leases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Lease } from '../runtime/lease.ts';
import { liveness } from './liveness.ts';

const NOW = Date.parse('2030-01-01T12:04:00.000Z');
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

const lease = (
  name: string,
  renewedSecondsAgo: number,
  holder: string | null = 'pod-a',
  duration = 15,
): Lease => ({
  metadata: { name, namespace: 'convoy-system' },
  spec: { holderIdentity: holder, leaseDurationSeconds: duration, renewTime: at(-renewedSecondsAgo) },
});

const downOf = (leases: readonly Lease[] | undefined) => {
  const l = liveness(leases, 'convoy-system', NOW).liveness;
  return l.kind === 'known' ? l.down.map((d) => [d.process, d.since ?? '-']) : l.kind;
};

const rows: readonly (readonly [string, readonly Lease[] | undefined, unknown])[] = [
  ['not listed yet: unknown, no banner', undefined, 'unknown'],
  [
    'both renewed within their duration: none down',
    [lease('convoy-controller-shard-0', 2), lease('convoy-observer-shard-0', 3)],
    [],
  ],
  [
    'the controller-manager lapsed: down since its last renewal',
    [lease('convoy-controller-shard-0', 80), lease('convoy-observer-shard-0', 3)],
    [['convoy-controller-manager', at(-80)]],
  ],
  [
    'released on a clean stop (no holder): down at once',
    [lease('convoy-controller-shard-0', 1, null, 1), lease('convoy-observer-shard-0', 1)],
    [['convoy-controller-manager', at(-1)]],
  ],
  [
    'one live shard of two is enough: the process runs',
    [
      lease('convoy-controller-shard-0', 90),
      lease('convoy-controller-shard-1', 1),
      lease('convoy-observer-shard-0', 1),
    ],
    [],
  ],
  [
    'no Lease at all: never ran here, no time',
    [lease('unrelated', 1)],
    [
      ['convoy-controller-manager', '-'],
      ['convoy-observer', '-'],
    ],
  ],
  [
    'every shard lapsed: since the newest renewal',
    [
      lease('convoy-observer-shard-0', 200),
      lease('convoy-observer-shard-1', 60),
      lease('convoy-controller-shard-0', 1),
    ],
    [['convoy-observer', at(-60)]],
  ],
];

for (const [name, leases, want] of rows) {
  test(`liveness: ${name}`, () => {
    assert.deepEqual(downOf(leases), want);
  });
}

test('liveness: looks again when the first live Lease would lapse', () => {
  const r = liveness(
    [lease('convoy-controller-shard-0', 2, 'a', 15), lease('convoy-observer-shard-0', 10, 'b', 15)],
    'convoy-system',
    NOW,
  );
  assert.equal(r.recheckAt, NOW + 5_000);
  const down = liveness([lease('convoy-controller-shard-0', 80)], 'convoy-system', NOW);
  assert.equal(down.recheckAt, undefined);
  assert.equal(
    down.liveness.kind === 'known' ? down.liveness.down[0]?.consequence : '',
    'nothing syncs or rolls back',
  );
});
