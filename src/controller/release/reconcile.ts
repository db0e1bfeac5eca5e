// reconcile: the order of docs/design.md#reconcile-order — stageRender, planRollout (no pin),
// applyLastHealthy (for that action), stageGates, stageSync — returning a tagged Outcome for status assembly.
// It writes no status itself.
import type { Release, ReleaseInventory } from '../../api/types.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { hookOf } from '../../render/annotations.ts';
import { objectKey } from '../../render/keys.ts';
import { applyLastHealthy } from './act/apply-last-healthy.ts';
import { syncFailStep } from './act/hooks/index.ts';
import { stageGates, suspendGate } from './act/stage-gates.ts';
import { type Rendered, stageRender } from './act/stage-render.ts';
import { stageSync } from './act/stage-sync.ts';
import {
  completeWaves,
  formatTime,
  type OutcomeRollout,
  type Plan,
  planRollout,
  type RenderVerdict,
  type Rollout,
  RolloutReason,
  startRolloutClock,
  type Verdict,
  verdict,
} from './decide/rollout/index.ts';
import { forcedSyncPending } from './decide/sync/index.ts';
import { releaseWarnings } from './decide/warnings.ts';
import type { ReleaseDeps } from './deps.ts';
import { ReleaseError, SourceFailedError } from './errors.ts';
import { noAttempt, noRollout, type Outcome, type RenderSummary } from './outcome.ts';

const rolloutOf = (r: Rollout | undefined): OutcomeRollout =>
  r === undefined ? noRollout : { kind: 'rollout', rollout: r };

export function asReleaseError(err: unknown): ReleaseError {
  if (err instanceof ReleaseError) return err;
  return new SourceFailedError(`unexpected failure: ${errorMessage(err)}`, {
    cause: err,
  });
}

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
}

export function observe(
  release: Release,
  deps: Pick<ReleaseDeps, 'cachedInventory' | 'observerLive'>,
): Observed {
  return {
    inventory: deps.cachedInventory(namespaceOf(release), nameOf(release))?.inventory,
    observerLive: deps.observerLive(release),
  };
}

/** verdict(R) from the snapshot. */
export function verdictFor(rendered: Rendered, observed: Observed): Verdict {
  return verdict({
    render: {
      renderRef: rendered.renderRef,
      objects: rendered.render.objects.map(objectKey),
      hooks: rendered.render.hooks.flatMap((h) => {
        const spec = hookOf(h.metadata.annotations);
        return spec === undefined ? [] : [{ name: h.metadata.name, phase: spec.phase }];
      }),
    },
    entries: observed.inventory?.entries ?? [],
    hooks: observed.inventory?.hooks ?? [],
    observerLive: observed.observerLive,
  });
}

/** The verdict of a render this reconcile did not render (R held by a gate, a failed stageRender): its objects are its entries. */
function verdictOfRecorded(ref: string, observed: Observed): Verdict | undefined {
  const entries = observed.inventory?.entries ?? [];
  const objects = entries.filter((e) => e.renderRef === ref);
  if (objects.length === 0) return undefined;
  return verdict({
    render: { renderRef: ref, objects, hooks: [] },
    entries,
    hooks: observed.inventory?.hooks ?? [],
    observerLive: observed.observerLive,
  });
}

export async function reconcile(release: Release, deps: ReleaseDeps): Promise<Outcome> {
  const observed = observe(release, deps);
  const ran = await run(release, deps, observed);
  const { rendered, planned } = ran;
  let out = withCompletedWaves(release, ran.outcome, observed, deps);
  // HOOKS (docs/design.md#hooks): SyncFail hooks of R, when its sync failed or its rollout is Failed.
  if (rendered !== undefined) {
    const notes = await syncFailStep(release, rendered, out, deps);
    if (notes.length > 0) out = { ...out, notes: [...out.notes, ...notes] };
  }
  if (planned !== undefined) out = { ...out, planned };
  const warnings = releaseWarnings(release.spec, rendered?.render);
  if (warnings.length > 0) out = { ...out, warnings };
  const ref =
    out.attempt.kind === 'attempt' ? out.attempt.renderRef : release.status?.lastAttempted?.renderRef;
  if (ref === undefined) return out;
  // The attempt's render is R: status assembly reads the very verdict planRollout read.
  if (planned !== undefined && planned.renderRef === ref) return { ...out, health: planned };
  const v = verdictOfRecorded(ref, observed);
  return v === undefined ? out : { ...out, health: { renderRef: ref, verdict: v } };
}

/** status.waves[].completedAt for the waves whose objects the observer found Healthy (see completeWaves). */
function withCompletedWaves(release: Release, out: Outcome, observed: Observed, deps: ReleaseDeps): Outcome {
  const waves = out.waves ?? release.status?.waves ?? [];
  const done = completeWaves(waves, observed.inventory?.entries ?? [], formatTime(deps.now()));
  return done === waves ? out : { ...out, waves: done };
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
function restartWaveClocks(release: Release, plan: Plan): Release {
  const R = plan.next?.renderRef;
  const waves = release.status?.waves;
  if (plan.transition?.reason !== RolloutReason.ForcedRetry || waves === undefined) return release;
  return { ...release, status: { ...release.status, waves: waves.filter((w) => w.renderRef !== R) } };
}

/** What run did: its outcome and, once stageRender succeeded, the render and the one verdict read for it. */
interface Ran {
  readonly outcome: Outcome;
  readonly rendered?: Rendered;
  readonly planned?: RenderVerdict & RenderSummary;
}

async function run(release: Release, deps: ReleaseDeps, observed: Observed): Promise<Ran> {
  // 0. suspended: no render, no sync, no rollback
  const suspended = suspendGate(release);
  if (suspended.kind === 'held') {
    const result = { kind: 'held', reason: suspended.reason, message: suspended.message } as const;
    return { outcome: { result, attempt: noAttempt, rollout: noRollout, notes: [] } };
  }

  // 1. stageRender
  let rendered: Rendered;
  try {
    rendered = await stageRender(release, deps);
  } catch (err) {
    const result = { kind: 'failed', error: asReleaseError(err) } as const;
    return { outcome: { result, attempt: noAttempt, rollout: noRollout, notes: [] } };
  }
  const R: RenderSummary = { renderRef: rendered.renderRef, revision: rendered.revision };
  const judged: RenderVerdict & RenderSummary = { ...R, verdict: verdictFor(rendered, observed) };
  const outcome = await runRendered(release, deps, observed, rendered, judged);
  return { outcome, rendered, planned: judged };
}

/** Steps 2–5 for the render R and its verdict. */
async function runRendered(
  release: Release,
  deps: ReleaseDeps,
  observed: Observed,
  rendered: Rendered,
  judged: RenderVerdict & RenderSummary,
): Promise<Outcome> {
  const status = release.status;
  const forced = forcedSyncPending(release.metadata.annotations, status);
  const R: RenderSummary = { renderRef: judged.renderRef, revision: judged.revision };
  const now = deps.now();

  // 2. planRollout, unless pinned
  const plan: Plan = rendered.pinned
    ? { next: undefined, action: { kind: 'applySource' }, rule: 'pinned' }
    : planRollout({
        render: R,
        prior: status?.rollout,
        verdict: judged.verdict,
        now,
        failurePolicy: release.spec.failurePolicy,
        lastHealthy: status?.lastHealthy,
        forcedSyncPending: forced,
        renderApplied: status?.lastSuccessful?.renderRef === R.renderRef,
        unpinned: unpinned(release, R),
      });
  const planned = rolloutOf(plan.next);

  // 3. applyLastHealthy
  if (plan.action.kind === 'applyLastHealthy') return await lastHealthy(release, rendered, R, planned, deps);

  // 4. stageGates
  const gate = stageGates(release, { ...R, pinned: rendered.pinned }, forced, deps);
  if (gate.kind === 'held') {
    return {
      result: { kind: 'held', reason: gate.reason, message: gate.message },
      attempt: noAttempt,
      rollout: planned,
      render: R,
      notes: [],
    };
  }

  // 5. stageSync
  const sync = await stageSync(
    { release: restartWaveClocks(release, plan), rendered, forced, observed },
    deps,
  );
  const started = rolloutOf(plan.next === undefined ? undefined : startRolloutClock(plan.next, deps.now()));
  switch (sync.kind) {
    case 'upToDate':
      return { result: { kind: 'synced', ...R }, attempt: noAttempt, rollout: planned, render: R, notes: [] };
    case 'synced':
      return {
        result: { kind: 'synced', ...R },
        attempt: { kind: 'attempt', ...sync.attempt },
        rollout: started,
        render: R,
        waves: sync.waves,
        applied: R,
        notes: sync.notes,
      };
    case 'held':
      return {
        result: { kind: 'held', reason: sync.reason, message: sync.message },
        attempt: { kind: 'attempt', ...sync.attempt },
        rollout: sync.rollout === undefined ? started : rolloutOf(sync.rollout),
        render: R,
        waves: sync.waves,
        notes: sync.notes,
      };
    case 'rollback': {
      const out = await lastHealthy(release, rendered, R, rolloutOf(sync.rollout), deps);
      return { ...out, waves: sync.waves, notes: [...sync.notes, ...out.notes] };
    }
    case 'failed':
      return {
        result: { kind: 'failed', error: sync.error },
        attempt: sync.attempt === undefined ? noAttempt : { kind: 'attempt', ...sync.attempt },
        rollout: planned,
        render: R,
        ...(sync.waves === undefined ? {} : { waves: sync.waves }),
        notes: sync.notes,
      };
    default:
      return assertNever(sync);
  }
}

async function lastHealthy(
  release: Release,
  rendered: Rendered,
  R: RenderSummary,
  rollout: OutcomeRollout,
  deps: ReleaseDeps,
): Promise<Outcome> {
  const r = await applyLastHealthy(release, rendered.target, deps);
  if (r.applied) {
    return {
      result: {
        kind: 'rolledBack',
        renderRef: r.attempt.renderRef,
        revision: r.attempt.revision,
        message: r.message,
      },
      attempt: { kind: 'attempt', ...r.attempt },
      rollout,
      render: R,
      notes: [],
    };
  }
  // The hold path does not apply R and returns no error: the requeue interval brings the next attempt.
  return {
    result: { kind: 'rolledBack', renderRef: R.renderRef, revision: R.revision, message: r.message },
    attempt: noAttempt,
    rollout,
    render: R,
    notes: [r.message],
  };
}
