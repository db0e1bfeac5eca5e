// status.waves bookkeeping: startedAt is stamped once per (render, wave) because the wave
// timeout counts from it (completedAt comes from rollout/wave-complete.ts). Only the current
// render's records are kept: a new render starts its waves' clocks afresh. Returns the same
// array when nothing changes, so a steady reconcile writes nothing.
import type { WaveStatus } from '../../../../api/types.ts';

export function recordWaveStart(
  waves: readonly WaveStatus[],
  renderRef: string,
  wave: number,
  now: string,
): readonly WaveStatus[] {
  const current = waves.filter((w) => w.renderRef === renderRef);
  if (current.some((w) => w.wave === wave)) return current.length === waves.length ? waves : current;
  return sortByWave([...current, { renderRef, wave, startedAt: now }]);
}

function sortByWave(waves: WaveStatus[]): WaveStatus[] {
  return waves.sort((a, b) => a.wave - b.wave);
}
