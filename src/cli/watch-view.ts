// `convoy watch`: from a Release and its inventory, where the rollout stands (waves, objects
// Healthy/total, hooks) and whether watching is over — 0 on Succeeded, 1 on Failed or RolledBack —
// so CI can gate on the exit code. Pure.
import type { Release, ReleaseInventory } from '../api/types.ts';
import { assertNever } from '../runtime/workers.ts';
import { paint, paintState, shortRef } from './format.ts';
import { hooksOf, isHealthyFor, wavesOf } from './views.ts';

export interface Progress {
  /** The render being followed; undefined until the controller has rendered one. */
  readonly renderRef?: string;
  /** Rollout state, or a description when the Release has no rollout. */
  readonly state: string;
  readonly wavesStarted: number;
  readonly wavesCompleted: number;
  /** The highest wave applied so far. */
  readonly frontier?: number;
  readonly healthy: number;
  readonly objects: number;
  readonly hooksDone: number;
  readonly hooks: number;
  readonly hooksFailed: number;
  readonly message: string;
}

export type Outcome =
  | { readonly kind: 'continue'; readonly waitingFor: string }
  | { readonly kind: 'done'; readonly exitCode: 0 | 1; readonly summary: string };

/** The render to follow: --render, else the controller's current render, else the rollout's. */
export function targetRender(r: Release, wanted: string | undefined): string | undefined {
  return wanted ?? r.status?.currentRender?.renderRef ?? r.status?.rollout?.renderRef;
}

const cond = (r: Release, type: string) => r.status?.conditions?.find((c) => c.type === type);

export function progress(r: Release, inv: ReleaseInventory | undefined, wanted?: string): Progress {
  const ref = targetRender(r, wanted);
  const waves = wavesOf(r, inv, ref);
  const entries = (inv?.entries ?? []).filter((e) => ref !== undefined && e.renderRef === ref);
  const hooks = hooksOf(inv, ref).filter((h) => h.phase === 'PreSync' || h.phase === 'PostSync');
  const ro = r.status?.rollout;
  const ready = cond(r, 'Ready');
  const state =
    ro !== undefined && ro.renderRef === ref
      ? ro.state
      : ready === undefined
        ? 'Pending'
        : ready.status === 'True'
          ? 'Synced'
          : ready.reason || 'Pending';
  const message =
    ro !== undefined && ro.renderRef === ref && ro.state !== 'Progressing'
      ? [ro.reason, ro.message].filter((x) => x).join(': ')
      : ready !== undefined && ready.status !== 'True'
        ? (ready.message ?? '')
        : '';
  const frontier = waves.length === 0 ? undefined : waves[waves.length - 1]?.wave;
  return {
    ...(ref === undefined ? {} : { renderRef: ref }),
    state,
    wavesStarted: waves.filter((w) => w.startedAt !== undefined || w.objects > 0).length,
    wavesCompleted: waves.filter((w) => w.completedAt !== undefined).length,
    ...(frontier === undefined ? {} : { frontier }),
    healthy: ref === undefined ? 0 : entries.filter((e) => isHealthyFor(e, ref)).length,
    objects: entries.length,
    hooksDone: hooks.filter((h) => h.state === 'Succeeded').length,
    hooksFailed: hooks.filter((h) => h.state === 'Failed').length,
    hooks: hooks.length,
    message,
  };
}

/** One line per change: "rollout Progressing sha256:… · waves 1/2 (at 1) · objects 3/5 Healthy · hooks 1/1". */
export function progressLine(p: Progress, colour: boolean): string {
  const parts = [
    `${paintState(p.state, colour)} ${shortRef(p.renderRef)}`,
    `waves ${p.wavesCompleted}/${p.wavesStarted} done${p.frontier === undefined ? '' : ` (at wave ${p.frontier})`}`,
    `objects ${p.healthy}/${p.objects} Healthy`,
  ];
  if (p.hooks > 0) {
    parts.push(
      `hooks ${p.hooksDone}/${p.hooks} Succeeded${p.hooksFailed > 0 ? `, ${p.hooksFailed} Failed` : ''}`,
    );
  }
  const line = parts.join(' · ');
  return p.message === '' ? line : `${line} · ${paint('dim', p.message, colour)}`;
}

/**
 * Whether the watch is over. With a rollout (failurePolicy set, not pinned): its terminal state for
 * the followed render decides. Without one there is no Succeeded: the sync being Ready and the
 * Healthy condition True is success. Stalled=True (the controller gave up) is a failure either way.
 */
export function outcome(r: Release, wanted?: string): Outcome {
  const s = r.status;
  const gen = r.metadata.generation ?? 0;
  if (s === undefined || (s.observedGeneration ?? 0) < gen) {
    return { kind: 'continue', waitingFor: `the controller to observe generation ${gen}` };
  }
  const stalled = cond(r, 'Stalled');
  if (stalled?.status === 'True') {
    return {
      kind: 'done',
      exitCode: 1,
      summary: `Stalled (${stalled.reason}): ${stalled.message ?? ''}`.trimEnd(),
    };
  }
  const ref = targetRender(r, wanted);
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
  const ready = cond(r, 'Ready');
  if (s.lastAttempted?.renderRef !== ref || ready?.status !== 'True') {
    return { kind: 'continue', waitingFor: `${shortRef(ref)} to be applied` };
  }
  const healthy = cond(r, 'Healthy');
  if (healthy?.status !== 'True') return { kind: 'continue', waitingFor: `${shortRef(ref)} to be Healthy` };
  return { kind: 'done', exitCode: 0, summary: `${ref} applied and Healthy (no rollout configured)` };
}
