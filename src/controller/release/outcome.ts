// The tagged result of one reconcile, as status assembly (decide/status.ts) consumes it: the Ready
// outcome for conditionsFor, the attempt and rollout for assembleStatus, and what else changed
// (status.waves, a render newly applied for history, notes for Events).
import type { LastAttempted, WaveStatus } from '../../api/types.ts';
import type { OutcomeAttempt, OutcomeRollout, RenderVerdict } from './decide/rollout/index.ts';
import type { ReadyOutcome } from './decide/sync/index.ts';
import type { ReleaseWarning } from './decide/warnings.ts';

export interface RenderSummary {
  readonly renderRef: string;
  readonly revision: string;
}

export interface Outcome {
  readonly result: ReadyOutcome;
  readonly attempt: OutcomeAttempt;
  readonly rollout: OutcomeRollout;
  /** R, when stageRender succeeded. */
  readonly render?: RenderSummary;
  /** status.waves after this reconcile; undefined: unchanged. */
  readonly waves?: readonly WaveStatus[];
  /** A render applied by stageSync in this reconcile (a history entry when it is new). */
  readonly applied?: RenderSummary;
  /** Things worth an Event beyond the Ready condition (prunes, recovered orphans, skipped dry runs). */
  readonly notes: readonly string[];
  /** verdict for the attempt's render (this reconcile's attempt, else status.lastAttempted). */
  readonly health?: RenderVerdict;
  /** verdict(R) as planRollout read it: the same value, from the same inventory snapshot as `health`. */
  readonly planned?: RenderVerdict & { readonly revision: string };
  /** Valid but suspicious settings (releaseWarnings): a Warning Event when new, first in status.message. */
  readonly warnings?: readonly ReleaseWarning[];
}

export const noAttempt: OutcomeAttempt = { kind: 'none' };
export const noRollout: OutcomeRollout = { kind: 'none' };

/** What applyLastHealthy did: applied the last healthy render (the attempt), or could not (why). */
export type LastHealthyResult =
  | {
      readonly applied: true;
      readonly attempt: LastAttempted;
      readonly message: string;
      /** Worth an Event: the stuck StatefulSet Pods deleted after the rollback (act/stuck-pods.ts). */
      readonly notes?: readonly string[];
    }
  | { readonly applied: false; readonly message: string };
