// The verification loop's pure decisions (docs/design.md#verification): which render a pass verifies, when
// its soak may begin (every object of it recorded, assessed and Healthy), and whether the inventory's
// measurements belong to this attempt of it. No I/O: the loop (./controller.ts) reads and writes.
import { parseDuration } from '../../api/duration.ts';
import type { VerificationStatus } from '../../api/index.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';
import { freshVerification } from '../../api/verification.ts';

export type VerifyPlan =
  /** Nothing to measure: no spec.verification, no rollout in progress, or its verification is final. */
  | { readonly kind: 'idle'; readonly why: string }
  /** The render is not yet all Healthy: the soak waits (the inventory's next health write wakes the loop). */
  | { readonly kind: 'waiting'; readonly renderRef: string; readonly why: string }
  /** Measure: `status` is this attempt's verification (a fresh one when the soak begins now). */
  | { readonly kind: 'measure'; readonly status: VerificationStatus; readonly started: boolean };

/** The verification's soak, initial delay and default interval in ms, from spec.verification. */
export function verificationTimes(release: Release): {
  readonly soakMs: number;
  readonly initialDelayMs: number;
  readonly intervalMs: number;
} {
  const v = release.spec.verification;
  return {
    soakMs: v === undefined ? 0 : parseDuration(v.soak),
    initialDelayMs: parseDuration(v?.initialDelay ?? '0s'),
    intervalMs: parseDuration(v?.interval ?? '30s'),
  };
}

/**
 * Every object of R is applied (the whole sync of R finished: lastSuccessful names it), none is pending,
 * and every entry recorded for R is assessed for R and Healthy. Hooks do not hold the soak: a PostSync
 * smoke test may run while the checks measure, and the controller's verdict waits for both.
 */
export function renderAllHealthy(
  release: Release,
  inventory: ReleaseInventory | undefined,
  R: string,
): boolean {
  if (release.status?.lastSuccessful?.renderRef !== R) return false;
  if ((inventory?.pending ?? []).length > 0) return false;
  const ofR = (inventory?.entries ?? []).filter((e) => e.renderRef === R);
  return ofR.length > 0 && ofR.every((e) => e.assessedRenderRef === R && e.state === 'Healthy');
}

export function planVerification(
  release: Release,
  inventory: ReleaseInventory | undefined,
  now: Date,
): VerifyPlan {
  if (release.spec.verification === undefined) return { kind: 'idle', why: 'no spec.verification' };
  if (release.metadata.deletionTimestamp !== undefined) return { kind: 'idle', why: 'deleting' };
  const rollout = release.status?.rollout;
  if (rollout === undefined || rollout.state !== 'Progressing') {
    return { kind: 'idle', why: `rollout ${rollout?.state ?? 'absent'}` };
  }
  if (release.spec.pin !== undefined) return { kind: 'idle', why: 'pinned' };
  const R = rollout.renderRef;
  const st = freshVerification(inventory?.verification, R, rollout.startedAt);
  if (st !== undefined) {
    if (st.phase === 'Passed' || st.phase === 'Failed')
      return { kind: 'idle', why: `verification ${st.phase}` };
    return { kind: 'measure', status: st, started: false };
  }
  if (!renderAllHealthy(release, inventory, R)) {
    return { kind: 'waiting', renderRef: R, why: 'not every object of the render is Healthy yet' };
  }
  return {
    kind: 'measure',
    started: true,
    status: { renderRef: R, startedAt: now.toISOString(), phase: 'Running', message: 'soak started' },
  };
}
