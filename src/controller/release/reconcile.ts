// One Release's reconcile, read top to bottom (docs/design.md#reading-one-reconcile). syncHandler is the
// key's pass as the harness runs it: deletion or the finalizer, reconcile, status assembly, the one status
// write, its Events, the store's gc and the next wake-up. reconcile is the seed's order of stages:
// stageRender, planRollout, applyLastHealthy or stageGates and stageSync, the SyncFail hooks, the Jobs of
// job checks. Every step is one call: decisions from decide/ (pure), actions from act/, the queue's
// answer from watch/.
import { FINALIZER } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import type { ReconcileResult } from '../../runtime/index.ts';
import { applyLastHealthy } from './act/apply-last-healthy.ts';
import { collectRenders } from './act/collect-renders.ts';
import { deletionHandler } from './act/deletion.ts';
import { announce, announceReplaced } from './act/events.ts';
import { ensureFinalizer } from './act/finalizer.ts';
import { syncFailStep } from './act/hooks/index.ts';
import { observe } from './act/observe.ts';
import { stageGates, suspendGate } from './act/stage-gates.ts';
import { type Rendered, stageRender } from './act/stage-render.ts';
import { stageSync } from './act/stage-sync.ts';
import { verificationJobsStep } from './act/verification-jobs.ts';
import { CONFLICT_REQUEUE_MS, writeReleaseStatus } from './act/write-status.ts';
import {
  afterWaveRollback,
  heldOutcome,
  renderFailedOutcome,
  rollbackOutcome,
  rolloutOf,
  settleOutcome,
  syncOutcome,
  withNotes,
} from './decide/outcomes.ts';
import { type Judged, judge, type Observed, planFor, restartWaveClocks } from './decide/pass.ts';
import type { OutcomeRollout } from './decide/rollout/index.ts';
import { releaseStatus } from './decide/status.ts';
import { forcedSyncPending } from './decide/sync/index.ts';
import type { ReleaseDeps } from './deps.ts';
import { asReleaseError } from './errors.ts';
import { noRollout, type Outcome } from './outcome.ts';
import { cutShort, nextPass } from './watch/requeue.ts';

export async function syncHandler(cached: Release | undefined, deps: ReleaseDeps): Promise<ReconcileResult> {
  // The Release from the cache; one that is gone, or deleted without convoy's finalizer, has nothing left.
  if (cached === undefined) return { kind: 'done' };
  if (cached.metadata.deletionTimestamp !== undefined) {
    if (!(cached.metadata.finalizers ?? []).includes(FINALIZER)) return { kind: 'done' };
    // Deletion (docs/design.md#deletion): PreDelete hooks, prune, PostDelete hooks, one step per pass.
    return await deletionHandler(cached, deps);
  }
  let release: Release;
  try {
    // The finalizer goes on before the first apply.
    release = await ensureFinalizer(cached, deps);
  } catch (error) {
    return { kind: 'error', error };
  }
  const outcome = await reconcile(release, deps);
  if (cutShort(outcome, deps.signal)) return { kind: 'error', error: deps.signal?.reason };
  // Status assembly (docs/design.md#status-assembly), pure.
  const now = deps.now();
  const status = releaseStatus(release, outcome, now);
  try {
    // The persisted transition this write replaces gets its Event first, then the one status write.
    await announceReplaced(release, status, deps, now);
    // Lost to a newer write: nothing of this pass is recorded, so the next one redoes it from that write.
    if ((await writeReleaseStatus(release, status, deps)) === 'conflict')
      return { kind: 'requeueAfter', ms: CONFLICT_REQUEUE_MS };
  } catch (error) {
    return { kind: 'error', error };
  }
  // What changed, as a log line and Events.
  announce(release, status, outcome, deps, now);
  // Old renders out of the store once a render was newly applied.
  await collectRenders(release, status, outcome, deps);
  // The error backoff for a failure a retry may fix, else the next wake-up.
  return nextPass(release, status, outcome, deps, now);
}

export async function reconcile(release: Release, deps: ReleaseDeps): Promise<Outcome> {
  // One snapshot of the inventory and the observer's liveness feeds every decision of the pass.
  const observed = observe(release, deps);
  const ran = await stages(release, deps, observed);
  // SyncFail hooks of R, when its sync failed or its rollout is Failed (docs/design.md#hooks).
  const out =
    ran.rendered === undefined
      ? ran.outcome
      : withNotes(ran.outcome, [
          ...(await syncFailStep(release, ran.rendered, ran.outcome, deps)),
          // The Jobs of job checks the observer asks for, and those no longer needed (docs/design.md#verification).
          ...(await verificationJobsStep(release, ran.rendered.target, observed.inventory)),
        ]);
  // Completed waves, the verdicts and the warnings status assembly reads, from the same snapshot.
  return settleOutcome(
    release,
    out,
    observed,
    { judged: ran.judged, render: ran.rendered?.render },
    deps.now(),
  );
}

/** What the stages did: the outcome and, once stageRender succeeded, the render and verdict(R). */
interface Ran {
  readonly outcome: Outcome;
  readonly rendered?: Rendered;
  readonly judged?: Judged;
}

async function stages(release: Release, deps: ReleaseDeps, observed: Observed): Promise<Ran> {
  // 0. spec.suspend holds everything: no render, no sync, no rollback.
  const suspended = suspendGate(release);
  if (suspended.kind === 'held') return { outcome: heldOutcome(suspended, noRollout) };
  // 1. stageRender: resolve the target, fetch and render the source, or load the pinned render.
  let rendered: Rendered;
  try {
    rendered = await stageRender(release, deps);
  } catch (err) {
    return { outcome: renderFailedOutcome(asReleaseError(err)) };
  }
  const judged = judge(rendered, observed);
  const R = { renderRef: rendered.renderRef, revision: rendered.revision };
  // 2. planRollout (no pin): at most one transition, and the action.
  const plan = planFor(release, rendered, judged, deps.now());
  // 3. applyLastHealthy, and the reconcile ends there.
  if (plan.action.kind === 'applyLastHealthy')
    return { outcome: await rollBack(release, rendered, rolloutOf(plan.next), deps), rendered, judged };
  // 4. stageGates: the manual sync mode and the cluster wave gate.
  const forced = forcedSyncPending(release.metadata.annotations, release.status);
  const gate = stageGates(release, { ...R, pinned: rendered.pinned }, forced, deps);
  if (gate.kind === 'held') return { outcome: heldOutcome(gate, rolloutOf(plan.next), R), rendered, judged };
  // 5. stageSync: dry run, persist, hooks, waves, prune.
  const sync = await stageSync(
    { release: restartWaveClocks(release, plan), rendered, forced, observed },
    deps,
  );
  // The wave gate's rollback is applyLastHealthy too.
  const outcome =
    sync.kind === 'rollback'
      ? afterWaveRollback(await rollBack(release, rendered, rolloutOf(sync.rollout), deps), sync)
      : syncOutcome(sync, plan, R, deps.now());
  return { outcome, rendered, judged };
}

/** applyLastHealthy (docs/design.md#apply-last-healthy): applied, or the rollback holds. */
async function rollBack(
  release: Release,
  rendered: Rendered,
  rollout: OutcomeRollout,
  deps: ReleaseDeps,
): Promise<Outcome> {
  const R = { renderRef: rendered.renderRef, revision: rendered.revision };
  return rollbackOutcome(await applyLastHealthy(release, rendered.target, deps), R, rollout);
}
