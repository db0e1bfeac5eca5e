// When a Release must be reconciled again for its rollout (docs/design.md#rollout-wake-ups): the deadline
// requeue of a Progressing rollout, and the ReleaseInventory watch filter inventory.HealthChanged (one
// definition for both processes, src/api/health-wake.ts). Without them a healthy render could pass its
// deadline before the next poll and be rolled back.
import { parseDuration } from '../../../../api/duration.ts';
import { elapsedSince } from './time.ts';
import type { FailurePolicy, Rollout, WaveStatus } from './types.ts';

export { healthChanged } from '../../../../api/health-wake.ts';

export type WakeUp =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'requeue';
      readonly afterMs: number;
      readonly reason: 'deadline' | 'waveTimeout' | 'interval';
    };

export interface WakeUpInput {
  readonly rollout: Rollout | undefined;
  readonly failurePolicy: FailurePolicy | undefined;
  readonly pinned: boolean;
  readonly deleting: boolean;
  /** spec.syncPolicy.interval (Go duration); unset or "0": no periodic reconcile. */
  readonly interval: string | undefined;
  readonly now: number;
  /** When the wave waiting for its previous wave times out (waveTimeoutAt); undefined: none. */
  readonly waveTimeoutAt?: number | undefined;
}

/** A wave timeout is decided with "more than": wake a little after it, not on the boundary. */
const WAVE_TIMEOUT_SLACK_MS = 1_000;

export function nextWakeUp(input: WakeUpInput): WakeUp {
  const interval = input.interval === undefined ? 0 : parseDuration(input.interval);
  const periodic: WakeUp =
    interval > 0 ? { kind: 'requeue', afterMs: interval, reason: 'interval' } : { kind: 'none' };
  const { rollout, failurePolicy } = input;
  // Failed and RolledBack wait for the interval (or a /sync); a rollout held by a gate has no clock yet.
  if (rollout?.state !== 'Progressing' || failurePolicy === undefined || input.pinned || input.deleting) {
    return periodic;
  }
  const elapsed = elapsedSince(rollout.startedAt, input.now);
  if (elapsed === undefined) return periodic;
  const untilDeadline = parseDuration(failurePolicy.deadline) - elapsed;
  const untilWave =
    input.waveTimeoutAt === undefined ? 0 : input.waveTimeoutAt - input.now + WAVE_TIMEOUT_SLACK_MS;
  const next = [untilDeadline, untilWave].filter((ms) => ms > 0);
  if (next.length === 0) return periodic;
  const remaining = Math.min(...next);
  // An interval of 0 means no periodic pass, not an immediate one: the deadline alone decides then.
  if (interval > 0 && interval <= remaining) return periodic;
  return {
    kind: 'requeue',
    afterMs: remaining,
    reason: remaining === untilDeadline ? 'deadline' : 'waveTimeout',
  };
}

interface WaveSpec {
  readonly wave: number;
  readonly healthStrategy?: string;
  readonly timeout?: string;
}

/**
 * When the next wave of `renderRef` that waits for its previous one (WaitPrevious with a timeout) times
 * out: the startedAt of the highest wave applied for the render plus the timeout of the first such wave
 * above it. Waves are applied in order, so the applied ones are a prefix; a render with no objects in that
 * wave costs one extra reconcile at most.
 */
export function waveTimeoutAt(
  waves: readonly WaveStatus[] | undefined,
  spec: readonly WaveSpec[] | undefined,
  renderRef: string | undefined,
): number | undefined {
  const applied = (waves ?? []).filter((w) => w.renderRef === renderRef);
  if (applied.length === 0) return undefined;
  const last = applied.reduce((a, b) => (b.wave > a.wave ? b : a));
  const waiting = (spec ?? [])
    .filter((w) => w.wave > last.wave && w.healthStrategy === 'WaitPrevious')
    .sort((a, b) => a.wave - b.wave)[0];
  const timeout = waiting?.timeout === undefined ? 0 : parseDuration(waiting.timeout);
  const started = Date.parse(last.startedAt);
  if (timeout <= 0 || Number.isNaN(started)) return undefined;
  return started + timeout;
}
