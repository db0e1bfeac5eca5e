// The pure steps a reconcile takes before it acts (docs/design.md#reading-one-reconcile): the one snapshot
// of the observer's work every decision of the pass reads, verdict(R) from it, and the plan — planRollout,
// or a pin's plain apply. reconcile.ts calls them in order; act/ carries out what they decide.
import { ANNOTATION_ACCEPTED_RENDER } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { hookOf } from '../../../render/annotations.ts';
import { objectKey } from '../../../render/keys.ts';
import type { Render } from '../../../render/types.ts';
import type { RenderSummary } from '../outcome.ts';
import { liveObjects } from './hooks/index.ts';
import {
  deadlineVerdict,
  type Plan,
  planRollout,
  type RenderVerdict,
  RolloutReason,
  syncFailureOf,
  type Verdict,
  type VerificationOfR,
  verdict,
} from './rollout/index.ts';
import { forcedSyncPending } from './sync/index.ts';

/**
 * What one reconcile knows of the observer's work: one read of the cached inventory and one reading of
 * the observer's liveness. Every decision of the pass (planRollout, status assembly, wave completion, the
 * wave gate, upToDate) reads this one snapshot: two readings can disagree (the observer's Lease lapsing
 * between them), and a pass that judged R Healthy for planRollout but Pending for status assembly wrote
 * Succeeded(R) with lastHealthy still naming an older render.
 */
export interface Observed {
  readonly inventory: ReleaseInventory | undefined;
  readonly observerLive: boolean;
  /** spec.verification is set: what verdict(R) reads of the inventory's verification. */
  readonly verification?: VerificationOfR;
}

/**
 * What verdict(R) reads of a Release with spec.verification (docs/design.md#verification): the inventory's
 * measurements, R's rollout clock (older measurements are not this attempt's) and whether a person accepted
 * R (the accepted-render annotation names it).
 */
export function verificationInput(
  release: Release,
  inventory: ReleaseInventory | undefined,
): VerificationOfR | undefined {
  if (release.spec.verification === undefined) return undefined;
  const rollout = release.status?.rollout;
  const accepted = release.metadata.annotations?.[ANNOTATION_ACCEPTED_RENDER];
  const st = inventory?.verification;
  return {
    status: st,
    since: rollout?.renderRef === st?.renderRef ? rollout?.startedAt : undefined,
    accepted: accepted !== undefined && accepted === st?.renderRef,
  };
}

/** What the decisions read of stageRender's result. */
export interface RenderOfPass extends RenderSummary {
  readonly render: Render;
  readonly pinned: boolean;
}

/** R and verdict(R), read once: planRollout and status assembly read the very same value. */
export type Judged = RenderVerdict & RenderSummary;

export function judge(rendered: RenderOfPass, observed: Observed): Judged {
  return {
    renderRef: rendered.renderRef,
    revision: rendered.revision,
    verdict: verdictFor(rendered, observed),
  };
}

/** verdict(R) from the snapshot. */
export function verdictFor(
  rendered: Pick<RenderOfPass, 'renderRef' | 'render'>,
  observed: Observed,
): Verdict {
  // HOOKS (docs/design.md#hooks): a hook resource its delete policy removed is not judged. As the verdict
  // reads hooks, a forced sync not yet run does not count: the re-run resources are judged once recorded.
  const objects = liveObjects(rendered.render.objects, {
    renderRef: rendered.renderRef,
    hooks: rendered.render.hooks,
    entries: observed.inventory?.hooks ?? [],
    forcedAt: undefined,
    now: 0,
  });
  return verdict({
    render: {
      renderRef: rendered.renderRef,
      objects: objects.map(objectKey),
      hooks: rendered.render.hooks.flatMap((h) => {
        const spec = hookOf(h.metadata.annotations);
        return spec === undefined ? [] : [{ name: h.metadata.name, phase: spec.phase }];
      }),
    },
    entries: observed.inventory?.entries ?? [],
    hooks: observed.inventory?.hooks ?? [],
    observerLive: observed.observerLive,
    verification: observed.verification,
  });
}

/** The verdict of a render this reconcile did not render (R held by a gate, a failed stageRender): its objects are its entries. */
export function verdictOfRecorded(ref: string, observed: Observed): Verdict | undefined {
  const entries = observed.inventory?.entries ?? [];
  const objects = entries.filter((e) => e.renderRef === ref);
  if (objects.length === 0) return undefined;
  return verdict({
    render: { renderRef: ref, objects, hooks: [] },
    entries,
    hooks: observed.inventory?.hooks ?? [],
    observerLive: observed.observerLive,
    verification: observed.verification,
  });
}

/** Step 2 of the seed's order: planRollout, or with a pin the plan is a plain apply with no rollout. */
export function planFor(release: Release, rendered: RenderOfPass, judged: Judged, now: number): Plan {
  if (rendered.pinned) return { next: undefined, action: { kind: 'applySource' }, rule: 'pinned' };
  const status = release.status;
  const R: RenderSummary = { renderRef: judged.renderRef, revision: judged.revision };
  return planRollout({
    render: R,
    prior: status?.rollout,
    // Past the deadline, R's own sync holding it unjudged counts (a running hook, a failing sync).
    verdict: deadlineVerdict(judged.verdict, syncFailureOf(status, R.renderRef)),
    now,
    failurePolicy: release.spec.failurePolicy,
    lastHealthy: status?.lastHealthy,
    forcedSyncPending: forcedSyncPending(release.metadata.annotations, status),
    renderApplied: status?.lastSuccessful?.renderRef === R.renderRef,
    unpinned: unpinned(release, R),
  });
}

/**
 * The previous reconcile rendered a pinned render (status.currentRender) and this one, unpinned, renders the
 * prior rollout's R again: docs/design.md#rollout-rules re-opens it. Every unpinned reconcile that renders
 * writes R to currentRender, so a currentRender other than R with a rollout of R can only come from a pin.
 */
function unpinned(release: Release, R: RenderSummary): boolean {
  const st = release.status;
  return (
    st?.currentRender !== undefined &&
    st.currentRender.renderRef !== R.renderRef &&
    st.rollout?.renderRef === R.renderRef
  );
}

/** A forced retry restarts R's wave clocks with its rollout clock, or an old wave startedAt would time out at once. */
export function restartWaveClocks(release: Release, plan: Plan): Release {
  const R = plan.next?.renderRef;
  const waves = release.status?.waves;
  if (plan.transition?.reason !== RolloutReason.ForcedRetry || waves === undefined) return release;
  return { ...release, status: { ...release.status, waves: waves.filter((w) => w.renderRef !== R) } };
}
