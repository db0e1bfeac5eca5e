// `convoy watch`: the progress line of the followed render (from progressSummary, the same figures as
// status, get and the API) and whether watching is over — 0 on Succeeded, 1 on Failed, RolledBack or
// anything that needs a person (Stalled, a Ready=False that is not progress, suspended) — so CI can
// gate on the exit code without hanging. Pure.
import { ANNOTATION_APPROVED_RENDER } from '../api/constants.ts';
import { parseDuration } from '../api/duration.ts';
import type { Release, ReleaseInventory } from '../api/types.ts';
import { forcedSyncPending } from '../controller/release/decide/sync/force.ts';
import { assembleInventory } from '../kube/inventory-read.ts';
import { assertNever } from '../lib/assert-never.ts';
import { nameOf } from '../lib/names.ts';
import { followedRender, type ProgressSummary, progressSummary } from '../server/progress.ts';
import { paint, paintState, shortRef } from './format.ts';

export type Outcome =
  | { readonly kind: 'continue'; readonly waitingFor: string }
  | { readonly kind: 'done'; readonly exitCode: 0 | 1; readonly summary: string };

/** The render to follow: --render, else the controller's current render, else the rollout's. */
export const targetRender = followedRender;

/** The progress of the followed render (progressSummary, under the name `convoy dev` uses). */
export const progress = progressSummary;

/**
 * The Release's whole inventory from part 0 (undefined: absent) and the parts its label selects
 * (docs/design.md#inventory-parts), so a Release of more than one part counts all its objects.
 */
export function wholeInventory(
  namespace: string,
  name: string,
  head: ReleaseInventory | undefined,
  parts: Iterable<ReleaseInventory>,
): ReleaseInventory | undefined {
  return assembleInventory({ namespace, name }, head, [...parts])?.inventory;
}

/** One line per change: "Progressing sha256:… · waves 1/2 done (at wave 1) · objects 3/5 Healthy · hooks 1 Succeeded". */
export function progressLine(p: ProgressSummary, colour: boolean): string {
  const w = p.waves;
  const parts = [
    `${paintState(p.state, colour)} ${shortRef(p.renderRef)}`,
    `waves ${w.done}/${w.total} done${w.current === undefined || w.done === w.total ? '' : ` (at wave ${w.current})`}`,
    `objects ${p.objects.healthy}/${p.objects.total} Healthy${p.objects.renderRef === undefined ? '' : ` (of ${shortRef(p.objects.renderRef)})`}`,
  ];
  const h = p.hooks;
  const hooks = [
    h.succeeded > 0 ? `${h.succeeded} Succeeded` : '',
    h.running > 0 ? `${h.running} Running` : '',
    h.failed > 0 ? `${h.failed} Failed` : '',
  ].filter((x) => x !== '');
  if (hooks.length > 0) parts.push(`hooks ${hooks.join(', ')}`);
  const line = parts.join(' · ');
  return p.message === '' ? line : `${line} · ${paint('dim', p.message, colour)}`;
}

const cond = (r: Release, type: string) => r.status?.conditions?.find((c) => c.type === type);

/**
 * Ready=False reasons that resolve without a person: convoy is still working on them (a retry that
 * is already scheduled, hooks and health it waits for). Every other Ready=False needs someone.
 */
const PROGRESS_REASONS = new Set([
  'Progressing',
  'WaitingForHook',
  'WaitingForWaveHealth',
  'WaitingForClusterWave',
]);

/**
 * Whether the watch is over. Stalled=True, a suspended Release, and a Ready=False that is not progress
 * (for the followed render, or any failure before a render when following the current one) need a
 * person: exit 1 with what Ready says. Otherwise, with a rollout (failurePolicy set, not pinned), its
 * terminal state for the followed render decides; without one, Ready=True and Healthy=True is success.
 */
export function outcome(r: Release, wanted?: string): Outcome {
  const s = r.status;
  const gen = r.metadata.generation ?? 0;
  const name = nameOf(r);
  if (r.spec.suspend === true) {
    return {
      kind: 'done',
      exitCode: 1,
      summary: `suspended (spec.suspend): convoy neither syncs nor rolls back; convoy resume ${name} to continue`,
    };
  }
  if (s === undefined || (s.observedGeneration ?? 0) < gen) {
    return { kind: 'continue', waitingFor: `the controller to observe generation ${gen}` };
  }
  const stalled = cond(r, 'Stalled');
  if (stalled?.status === 'True') {
    return {
      kind: 'done',
      exitCode: 1,
      summary:
        `Stalled (${stalled.reason}): ${stalled.message ?? ''} — a retry cannot fix this; change the Release or its source`.trim(),
    };
  }
  const ref = followedRender(r, wanted);
  const ready = cond(r, 'Ready');
  const about =
    wanted === undefined || s.lastAttempted?.renderRef === ref || s.currentRender?.renderRef === ref;
  // A request the controller has not acted on yet (a forced sync, an approval of this render) may
  // clear the failure: wait for it instead of reporting the state from before it.
  const annotations = r.metadata.annotations ?? {};
  const pending =
    forcedSyncPending(annotations, s) ||
    (ready?.reason === 'WaitingForApproval' &&
      annotations[ANNOTATION_APPROVED_RENDER] !== undefined &&
      annotations[ANNOTATION_APPROVED_RENDER] === s.currentRender?.renderRef);
  if (
    ready?.status === 'False' &&
    about &&
    !pending &&
    !PROGRESS_REASONS.has(ready.reason) &&
    !(ready.reason === 'RolledBack' && s.rollout?.renderRef === ref)
  ) {
    return {
      kind: 'done',
      exitCode: 1,
      summary: `needs attention: Ready is False (${ready.reason})${ready.message ? `: ${ready.message}` : ''}`,
    };
  }
  if (ref === undefined) return { kind: 'continue', waitingFor: 'a render' };
  const rollsOut = r.spec.failurePolicy !== undefined && r.spec.pin === undefined;
  if (rollsOut) {
    const ro = s.rollout;
    if (ro === undefined || ro.renderRef !== ref) {
      return { kind: 'continue', waitingFor: `the rollout of ${shortRef(ref)} to start` };
    }
    const why = [ro.reason, ro.message].filter((x) => x).join(': ');
    switch (ro.state) {
      case 'Progressing':
        return { kind: 'continue', waitingFor: `the rollout of ${shortRef(ref)}` };
      case 'Succeeded':
        return { kind: 'done', exitCode: 0, summary: `rollout of ${ref} Succeeded` };
      case 'Failed':
        return { kind: 'done', exitCode: 1, summary: `rollout of ${ref} Failed${why ? `: ${why}` : ''}` };
      case 'RolledBack': {
        const back = s.lastHealthy?.renderRef;
        return {
          kind: 'done',
          exitCode: 1,
          summary: `rollout of ${ref} RolledBack${back ? ` to ${back}` : ''}${why ? `: ${why}` : ''}`,
        };
      }
      default:
        return assertNever(ro.state);
    }
  }
  if (s.lastAttempted?.renderRef !== ref || ready?.status !== 'True') {
    return { kind: 'continue', waitingFor: `${shortRef(ref)} to be applied` };
  }
  const healthy = cond(r, 'Healthy');
  if (healthy?.status !== 'True') return { kind: 'continue', waitingFor: `${shortRef(ref)} to be Healthy` };
  return { kind: 'done', exitCode: 0, summary: `${ref} applied and Healthy (no rollout configured)` };
}

/** Margin past the rollout deadline before watch gives up, and the limit without a failurePolicy. */
export const DEADLINE_MARGIN_MS = 2 * 60_000;
export const NO_DEADLINE_TIMEOUT_MS = 15 * 60_000;

/** How long watch waits without --timeout: the rollout deadline plus a margin, else 15 minutes. */
export function defaultTimeoutMs(r: Release): number {
  const d = r.spec.failurePolicy?.deadline;
  if (d === undefined) return NO_DEADLINE_TIMEOUT_MS;
  let ms = Number.NaN;
  try {
    ms = parseDuration(d);
  } catch {
    // an unparsable deadline (the CRD rejects them): fall back to the fixed limit
  }
  return Number.isFinite(ms) && ms >= 0 ? ms + DEADLINE_MARGIN_MS : NO_DEADLINE_TIMEOUT_MS;
}
