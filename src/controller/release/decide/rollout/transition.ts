// rolloutTransition: what changed between the persisted status.rollout and the one a reconcile writes,
// as one Event and one log line naming the from and to states, both render refs and the reason. Derived
// from the two statuses rather than from the plan, so the wave gate's transitions and a rollback's hold
// are covered by the same rule. A clock that starts on a held render is not a transition.

import type { RenderStamp, Rollout, RolloutState } from './types.ts';
import { shortRef } from './types.ts';

export interface RolloutTransition {
  readonly from: RolloutState | 'None';
  readonly to: RolloutState;
  readonly fromRenderRef: string | undefined;
  readonly toRenderRef: string;
  readonly reason: string;
  readonly eventType: 'Normal' | 'Warning';
  /** The Event reason: Rollout<to>. */
  readonly eventReason: string;
  readonly message: string;
}

export function rolloutTransition(
  prior: Rollout | undefined,
  next: Rollout | undefined,
  lastHealthy: RenderStamp | undefined,
): RolloutTransition | undefined {
  if (next === undefined) return undefined;
  const restarted =
    prior !== undefined &&
    prior.state === 'Progressing' &&
    next.state === 'Progressing' &&
    prior.startedAt !== undefined &&
    next.startedAt !== prior.startedAt;
  if (prior !== undefined && prior.state === next.state && prior.renderRef === next.renderRef && !restarted) {
    return undefined;
  }
  const from = prior?.state ?? 'None';
  const reason = next.reason ?? '';
  const fromPart =
    prior === undefined ? 'None' : `${prior.state} (${shortRef(prior.renderRef)}${rev(prior.revision)})`;
  const back =
    next.state === 'RolledBack' && lastHealthy !== undefined
      ? `; last healthy render ${shortRef(lastHealthy.renderRef)}${rev(lastHealthy.revision)} applied`
      : '';
  const detail = next.message === undefined || next.message === '' ? '' : `: ${next.message}`;
  return {
    from,
    to: next.state,
    fromRenderRef: prior?.renderRef,
    toRenderRef: next.renderRef,
    reason,
    eventType: next.state === 'Failed' || next.state === 'RolledBack' ? 'Warning' : 'Normal',
    eventReason: `Rollout${next.state}`,
    message: `rollout ${fromPart} → ${next.state} (${shortRef(next.renderRef)}${rev(next.revision)}), reason ${reason}${back}${detail}`,
  };
}

function rev(revision: string | undefined): string {
  return revision === undefined || revision === '' ? '' : ` revision ${revision.slice(0, 12)}`;
}
