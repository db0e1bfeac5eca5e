// deadlineVerdict: what planRollout's deadline rows read (docs/design.md#rollout-rules). verdict(R) stays
// Pending while R's own sync has not got it judged: a PreSync or PostSync hook still running, or the sync
// failing before anything of R was applied (a dry run refused every retry). Left Pending, neither ever met
// the deadline: argo-cd's PreSync hook held a 3-minute rollout for 5, and a first render refused by its
// dry run stayed Progressing forever. So past the deadline these count as Unhealthy, with their cause. The
// observer not live, or health not yet assessed or Unknown, stays Pending: those never roll back.
import type { Condition } from '../../../../api/types.ts';
import { type Verdict, VerdictReason } from './verdict.ts';

/** Ready reasons of a sync of R that failed before (or while) applying it. */
const SYNC_FAILURES: ReadonlySet<string> = new Set(['DryRunFailed', 'ApplyFailed', 'PersistFailed']);

/**
 * The failure the last reconcile of R recorded in Ready, when it is a failing sync of the rollout's own
 * render; undefined otherwise.
 */
export function syncFailureOf(
  status:
    | { readonly conditions?: readonly Condition[]; readonly rollout?: { readonly renderRef: string } }
    | undefined,
  R: string,
): string | undefined {
  if (status?.rollout?.renderRef !== R) return undefined;
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False' || !SYNC_FAILURES.has(ready.reason ?? '')) return undefined;
  return `${ready.reason}: ${ready.message ?? ''}`;
}

export function deadlineVerdict(v: Verdict, syncFailure: string | undefined): Verdict {
  if (v.kind !== 'Pending') return v;
  if (v.reason === VerdictReason.HookRunning)
    return { kind: 'Unhealthy', reason: v.reason, message: v.message };
  if (v.reason === VerdictReason.NotYetRecorded && syncFailure !== undefined)
    return {
      kind: 'Unhealthy',
      reason: VerdictReason.SyncFailing,
      message: `its sync fails: ${syncFailure}`,
    };
  return v;
}
