// The Verified condition (docs/design.md#verification): what a person reads of the rollout's verification
// in `kubectl get`, `convoy status` and the UI. Unknown while it waits or measures, False when a person
// must act (inconclusive) or it failed, True once it passed. Pure: from verdict(R) of this reconcile.
import type { ConditionUpdate, RenderVerdict } from './rollout/index.ts';
import { VerdictReason } from './rollout/index.ts';

export const CONDITION_VERIFIED = 'Verified';

/** The condition for the rollout's render R; undefined: keep what is there (R not judged this pass). */
export function verifiedCondition(
  planned: RenderVerdict | undefined,
  rolloutRenderRef: string | undefined,
  generation: number,
): ConditionUpdate | undefined {
  if (planned === undefined || planned.renderRef !== rolloutRenderRef) return undefined;
  const v = planned.verdict;
  const c = (status: 'True' | 'False' | 'Unknown', reason: string, message: string): ConditionUpdate => ({
    type: CONDITION_VERIFIED,
    status,
    reason,
    message,
    observedGeneration: generation,
  });
  if (v.kind === 'Healthy') return c('True', 'Passed', v.message);
  switch (v.reason) {
    case VerdictReason.Verifying:
      return c('Unknown', 'Verifying', v.message);
    case VerdictReason.VerificationInconclusive:
      return c('False', 'VerificationInconclusive', v.message);
    case VerdictReason.VerificationFailed:
      return c('False', 'VerificationFailed', v.message);
    default:
      return c('Unknown', 'WaitingForHealth', `the soak starts once every object is Healthy: ${v.message}`);
  }
}
