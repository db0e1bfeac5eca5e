// Table tests of waveHealthGate: proceed, the holds that never fail, and the timeout transitions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entry, MIN, obj, R1, R2, T0 } from './fixtures.ts';
import { formatTime } from './time.ts';
import type { InventoryEntry, Rollout } from './types.ts';
import { priorRolloutStartedAt, type WaveGateInput, waveHealthGate } from './wave-gate.ts';

const a = obj('a');
const b = obj('b');
const late = obj('late');
const TIMEOUT = 5 * MIN;

function gate(over: Partial<WaveGateInput>): WaveGateInput {
  return {
    render: { renderRef: R2, revision: 'rev-2' },
    wave: 1,
    previousWave: 0,
    entries: [entry(a, R2, 'Healthy', 0), entry(b, R2, 'Degraded', 0), entry(late, R1, 'Healthy', 1)],
    waves: [
      { renderRef: R1, wave: 0, startedAt: formatTime(T0 - 600 * MIN) },
      { renderRef: R2, wave: 0, startedAt: formatTime(T0) },
    ],
    timeout: '5m',
    observerLive: true,
    failurePolicy: { deadline: '10m', rollback: 'OnFailure' },
    pinned: false,
    prior: {
      state: 'Progressing',
      renderRef: R2,
      revision: 'rev-2',
      startedAt: formatTime(T0 - MIN),
      reason: 'NewRender',
      message: '',
    },
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: formatTime(T0 - 700 * MIN) },
    now: T0 + MIN,
    ...over,
  };
}

const timedOut = T0 + TIMEOUT + 1000;

describe('waveHealthGate', () => {
  test('every entry of the previous wave Healthy for R → proceed (other waves and leftovers ignored)', () => {
    const entries: InventoryEntry[] = [
      entry(a, R2, 'Healthy', 0),
      entry(b, R2, 'Healthy', 0),
      entry(obj('old'), R1, 'Degraded', 0),
      entry(obj('other'), R2, 'Degraded', 2),
    ];
    assert.deepEqual(waveHealthGate(gate({ entries, now: timedOut })), { kind: 'proceed' });
  });

  test('holds, never fails, while the health of the previous wave is not known — even past the timeout', () => {
    const stale: InventoryEntry = { ...entry(b, R2, 'Degraded', 0), assessedRenderRef: R1 };
    const unknown = entry(b, R2, 'Unknown', 0);
    const rows: [string, Partial<WaveGateInput>, RegExp][] = [
      ['observer not live', { observerLive: false }, /observer not live$/],
      [
        'not yet assessed for R',
        { entries: [entry(a, R2, 'Healthy', 0), stale] },
        /1 of 2 objects not yet assessed$/,
      ],
      ['Unknown', { entries: [entry(a, R2, 'Degraded', 0), unknown] }, /1 of 2 objects of unknown health$/],
      ['not yet recorded for R', { entries: [entry(a, R1, 'Degraded', 0)] }, /not yet recorded$/],
    ];
    for (const [name, over, message] of rows) {
      const d = waveHealthGate(gate({ ...over, now: timedOut }));
      assert.equal(d.kind, 'hold', name);
      assert.ok(d.kind === 'hold');
      assert.equal(d.reason, 'WaitingForWaveHealth', name);
      assert.match(d.message, message, name);
    }
  });

  test('unhealthy within the timeout → hold WaitingForWaveHealth, no rollout', () => {
    const d = waveHealthGate(gate({ now: T0 + 3 * MIN }));
    assert.deepEqual(d, {
      kind: 'hold',
      reason: 'WaitingForWaveHealth',
      message:
        'wave 1 of sha256:222222222222… waits for wave 0: 1 of 2 objects not healthy (Deployment web/b) for 3m0s of 5m',
    });
  });

  test('the timeout is "more than": exactly at the timeout still holds', () => {
    const d = waveHealthGate(gate({ now: T0 + TIMEOUT }));
    assert.equal(d.kind, 'hold');
  });

  test('no timeout set ("" absent or "0") → no wave timeout, hold forever', () => {
    for (const timeout of [undefined, '0']) {
      const d = waveHealthGate(gate({ timeout, now: T0 + 1000 * MIN }));
      assert.ok(d.kind === 'hold', String(timeout));
      assert.equal(d.reason, 'WaitingForWaveHealth');
    }
  });

  test('the previous wave has no startedAt for R (only an older render’s) → hold', () => {
    const d = waveHealthGate(
      gate({ waves: [{ renderRef: R1, wave: 0, startedAt: formatTime(T0 - 600 * MIN) }] }),
    );
    assert.ok(d.kind === 'hold');
    assert.equal(d.reason, 'WaitingForWaveHealth');
  });

  test('timed out without a failurePolicy, or under a pin → hold WaveTimeout, no rollout', () => {
    const rows: [string, Partial<WaveGateInput>, RegExp][] = [
      ['no failurePolicy', { failurePolicy: undefined }, /no failurePolicy$/],
      ['pinned', { pinned: true }, /pinned$/],
    ];
    for (const [name, over, message] of rows) {
      const d = waveHealthGate(gate({ ...over, now: timedOut }));
      assert.ok(d.kind === 'hold', name);
      assert.equal(d.reason, 'WaveTimeout', name);
      assert.match(d.message, message, name);
    }
  });

  test('timed out, rollback eligible → RolledBack with applyLastHealthy, keeping prior.startedAt of R', () => {
    const d = waveHealthGate(gate({ now: timedOut }));
    assert.deepEqual(d, {
      kind: 'transition',
      action: 'applyLastHealthy',
      rollout: {
        state: 'RolledBack',
        renderRef: R2,
        revision: 'rev-2',
        startedAt: formatTime(T0 - MIN),
        finishedAt: formatTime(timedOut),
        reason: 'WaveTimeout',
        message:
          'wave 1 of sha256:222222222222… waits for wave 0: 1 of 2 objects not healthy (Deployment web/b) ' +
          'for 5m1s, more than the wave timeout 5m; rolled back to sha256:111111111111… (revision rev-1)',
      },
    });
  });

  test('priorRolloutStartedAt: the current time when the prior rollout is of another render', () => {
    const prior = {
      state: 'Succeeded' as const,
      renderRef: R1,
      revision: 'rev-1',
      startedAt: formatTime(T0 - 900 * MIN),
      reason: 'Healthy',
      message: '',
    };
    const d = waveHealthGate(gate({ prior, now: timedOut }));
    assert.ok(d.kind === 'transition');
    assert.equal(d.rollout.startedAt, formatTime(timedOut));
    const none = waveHealthGate(gate({ prior: undefined, now: timedOut }));
    assert.ok(none.kind === 'transition');
    assert.equal(none.rollout.startedAt, formatTime(timedOut));
  });

  test('timed out, not eligible → Failed with stop', () => {
    const rows: [string, Partial<WaveGateInput>][] = [
      ['rollback Never', { failurePolicy: { deadline: '10m', rollback: 'Never' } }],
      ['no last healthy render', { lastHealthy: undefined }],
      [
        'last healthy is R itself',
        { lastHealthy: { renderRef: R2, revision: 'rev-2', time: formatTime(T0) } },
      ],
    ];
    for (const [name, over] of rows) {
      const d = waveHealthGate(gate({ ...over, now: timedOut }));
      assert.ok(d.kind === 'transition', name);
      assert.equal(d.action, 'stop', name);
      assert.equal(d.rollout.state, 'Failed', name);
      assert.equal(d.rollout.reason, 'WaveTimeout', name);
      assert.match(d.rollout.message ?? '', /; no rollback: /, name);
    }
  });
});

test('priorRolloutStartedAt: the prior rollout keeps its clock when it is R, else the clock starts now', () => {
  const T = Date.UTC(2026, 0, 1, 12);
  const started = '2026-01-01T11:00:00Z';
  const R = `sha256:${'d'.repeat(64)}`;
  const other = `sha256:${'e'.repeat(64)}`;
  const rows: [string, Rollout | undefined, string][] = [
    ['no prior rollout', undefined, formatTime(T)],
    ['the prior is R', { state: 'Progressing', renderRef: R, startedAt: started }, started],
    ['the prior is R, no clock yet (held by a gate)', { state: 'Progressing', renderRef: R }, formatTime(T)],
    [
      'the prior is another render',
      { state: 'Progressing', renderRef: other, startedAt: started },
      formatTime(T),
    ],
  ];
  for (const [name, prior, want] of rows) assert.equal(priorRolloutStartedAt(prior, R, T), want, name);
});
