// waveHealthGate: whether a sync wave with healthStrategy WaitPrevious may be applied now. It is the only
// rollout transition at apply time, since a wave timeout shows only inside the wave loop. It never fails
// a wave whose health is not known (not assessed for R, Unknown, observer not live): those hold.
import { parseDuration } from '../../../../api/duration.ts';
import { RolloutReason, rollbackBlocker } from './reasons.ts';
import { elapsedSince, formatDuration, formatTime } from './time.ts';
import {
  describeObject,
  entryWave,
  type FailurePolicy,
  type InventoryEntry,
  type RenderId,
  type RenderStamp,
  type Rollout,
  shortRef,
  type WaveStatus,
} from './types.ts';

export const WaveGateReason = {
  WaitingForWaveHealth: 'WaitingForWaveHealth',
  WaveTimeout: 'WaveTimeout',
} as const;
export type WaveGateReason = (typeof WaveGateReason)[keyof typeof WaveGateReason];

export type WaveGateDecision =
  | { readonly kind: 'proceed' }
  | { readonly kind: 'hold'; readonly reason: WaveGateReason; readonly message: string }
  /** applyLastHealthy for RolledBack; stop (the sync of R fails, SyncFail hooks run) for Failed. */
  | { readonly kind: 'transition'; readonly rollout: Rollout; readonly action: 'applyLastHealthy' | 'stop' };

export interface WaveGateInput {
  readonly render: RenderId;
  /** The wave waiting to be applied. */
  readonly wave: number;
  /** The previous wave present in R. */
  readonly previousWave: number;
  readonly entries: readonly InventoryEntry[];
  /** status.waves */
  readonly waves: readonly WaveStatus[];
  /** The waiting wave's timeout (Go duration); absent or "0": no wave timeout. */
  readonly timeout: string | undefined;
  readonly observerLive: boolean;
  readonly failurePolicy: FailurePolicy | undefined;
  readonly pinned: boolean;
  /** The persisted status.rollout. */
  readonly prior: Rollout | undefined;
  readonly lastHealthy: RenderStamp | undefined;
  readonly now: number;
}

export function waveHealthGate(input: WaveGateInput): WaveGateDecision {
  const { render, wave, previousWave: prev, now } = input;
  const R = render.renderRef;
  const waiting = `wave ${wave} of ${shortRef(R)} waits for wave ${prev}`;
  const hold = (reason: WaveGateReason, why: string): WaveGateDecision => ({
    kind: 'hold',
    reason,
    message: `${waiting}: ${why}`,
  });

  if (!input.observerLive) return hold(WaveGateReason.WaitingForWaveHealth, 'observer not live');

  const prevEntries = input.entries.filter((e) => entryWave(e) === prev && e.renderRef === R);
  if (prevEntries.length === 0) return hold(WaveGateReason.WaitingForWaveHealth, 'not yet recorded');
  const unassessed = prevEntries.filter((e) => e.assessedRenderRef !== R || e.state === undefined);
  if (unassessed.length > 0) {
    return hold(WaveGateReason.WaitingForWaveHealth, `${count(unassessed, prevEntries)} not yet assessed`);
  }
  const unknown = prevEntries.filter((e) => e.state === 'Unknown');
  if (unknown.length > 0) {
    return hold(WaveGateReason.WaitingForWaveHealth, `${count(unknown, prevEntries)} of unknown health`);
  }
  const unhealthy = prevEntries.filter((e) => e.state !== 'Healthy');
  if (unhealthy.length === 0) return { kind: 'proceed' };

  const notHealthy = `${count(unhealthy, prevEntries)} not healthy (${unhealthy.map(describeObject).slice(0, 3).join('; ')})`;
  const timeout = input.timeout === undefined ? 0 : parseDuration(input.timeout);
  const started = input.waves.find((w) => w.renderRef === R && w.wave === prev)?.startedAt;
  const waited = elapsedSince(started, now);
  if (timeout <= 0 || waited === undefined || waited <= timeout) {
    const progress =
      timeout > 0 && waited !== undefined ? ` for ${formatDuration(waited)} of ${input.timeout}` : '';
    return hold(WaveGateReason.WaitingForWaveHealth, `${notHealthy}${progress}`);
  }

  const timedOut = `${notHealthy} for ${formatDuration(waited)}, more than the wave timeout ${input.timeout}`;
  const policy = input.failurePolicy;
  if (policy === undefined || input.pinned) {
    return hold(
      WaveGateReason.WaveTimeout,
      `${timedOut}; ${policy === undefined ? 'no failurePolicy' : 'pinned'}`,
    );
  }

  const base = {
    renderRef: R,
    revision: render.revision,
    startedAt: priorRolloutStartedAt(input.prior, R, now),
    finishedAt: formatTime(now),
    reason: RolloutReason.WaveTimeout,
  };
  const blocker = rollbackBlocker(policy, input.lastHealthy, R);
  if (blocker === undefined && input.lastHealthy !== undefined) {
    const to = `${shortRef(input.lastHealthy.renderRef)} (revision ${input.lastHealthy.revision})`;
    return {
      kind: 'transition',
      rollout: { ...base, state: 'RolledBack', message: `${waiting}: ${timedOut}; rolled back to ${to}` },
      action: 'applyLastHealthy',
    };
  }
  return {
    kind: 'transition',
    rollout: { ...base, state: 'Failed', message: `${waiting}: ${timedOut}; no rollback: ${blocker}` },
    action: 'stop',
  };
}

/**
 * priorRolloutStartedAt (the seed's name): the startedAt of the prior rollout when it is R's, so a wave
 * timeout keeps R's clock; otherwise now, the moment the transition opens and closes R's rollout.
 */
export function priorRolloutStartedAt(prior: Rollout | undefined, R: string, now: number): string {
  return (prior?.renderRef === R ? prior.startedAt : undefined) ?? formatTime(now);
}

function count(some: readonly unknown[], all: readonly unknown[]): string {
  return `${some.length} of ${all.length} objects`;
}
