// progressSummary: where the rollout of one render stands — its state, its waves (done of known), its
// objects (Healthy of recorded) and its hooks — from the Release status and its ReleaseInventory. The
// one derivation `convoy watch`, `convoy status`, `convoy get` and the HTTP API's health view all use,
// so they cannot disagree. Pure.
//
// Rules that keep the figures consistent with each other:
// - a wave is done when its record has completedAt, when every object recorded in it is Healthy for the
//   render, or when the rollout of the render Succeeded (then all are);
// - "at wave N" is the lowest wave not done, and is absent when all are done;
// - after a rollback the objects counted are those of the render now applied (the last healthy one),
//   since the rolled-back render has none left;
// - hooks are counted by state, not as a ratio: a PostSync hook is not recorded until it is created,
//   so "1/1" would claim a total nobody knows.
import type { InventoryEntry, InventoryHook, Release, ReleaseInventory } from '../api/types.ts';

export interface WaveProgress {
  readonly wave: number;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly objects: number;
  readonly healthy: number;
  readonly done: boolean;
}

export interface ProgressSummary {
  /** The render followed; undefined until the controller has rendered one. */
  readonly renderRef?: string;
  /** The controller knows the followed render (its status names it). */
  readonly known: boolean;
  /** Rollout state of the render, else Synced / a Ready reason / Pending / Suspended. */
  readonly state: string;
  readonly waves: {
    readonly done: number;
    readonly total: number;
    /** The lowest wave not done; absent when all are. */
    readonly current?: number;
    readonly list: readonly WaveProgress[];
  };
  readonly objects: {
    readonly healthy: number;
    readonly total: number;
    /** Whose objects were counted, when not the followed render's (after a rollback). */
    readonly renderRef?: string;
  };
  readonly hooks: {
    readonly succeeded: number;
    readonly failed: number;
    readonly running: number;
    readonly list: readonly InventoryHook[];
  };
  /** Why it stands where it stands: the rollout's or the Ready condition's reason and message. */
  readonly message: string;
}

const cond = (r: Release, type: string) => r.status?.conditions?.find((c) => c.type === type);

export function isHealthyFor(e: InventoryEntry, ref: string): boolean {
  return e.state === 'Healthy' && e.assessedRenderRef === ref;
}

/** The render to follow: the one asked for, else the controller's current render, else the rollout's. */
export function followedRender(r: Release, wanted?: string): string | undefined {
  return wanted ?? r.status?.currentRender?.renderRef ?? r.status?.rollout?.renderRef;
}

function joinWhy(reason: string | undefined, message: string | undefined): string {
  return [reason, message].filter((x) => x !== undefined && x !== '').join(': ');
}

function wavesOf(
  r: Release,
  inv: ReleaseInventory | undefined,
  ref: string,
  succeeded: boolean,
): WaveProgress[] {
  const byWave = new Map<
    number,
    { startedAt?: string; completedAt?: string; objects: number; healthy: number }
  >();
  for (const w of r.status?.waves ?? []) {
    if (w.renderRef !== ref) continue;
    byWave.set(w.wave, {
      startedAt: w.startedAt,
      ...(w.completedAt === undefined ? {} : { completedAt: w.completedAt }),
      objects: 0,
      healthy: 0,
    });
  }
  for (const e of inv?.entries ?? []) {
    if (e.renderRef !== ref) continue;
    const wave = e.wave ?? 0;
    const row = byWave.get(wave) ?? { objects: 0, healthy: 0 };
    byWave.set(wave, {
      ...row,
      objects: row.objects + 1,
      healthy: row.healthy + (isHealthyFor(e, ref) ? 1 : 0),
    });
  }
  return [...byWave.entries()]
    .sort(([a], [b]) => a - b)
    .map(([wave, w]) => ({
      wave,
      ...w,
      done: succeeded || w.completedAt !== undefined || (w.objects > 0 && w.healthy === w.objects),
    }));
}

function stateOf(r: Release, ref: string | undefined, known: boolean): { state: string; message: string } {
  const ro = r.status?.rollout;
  const ready = cond(r, 'Ready');
  if (r.spec.suspend === true) {
    return { state: 'Suspended', message: 'spec.suspend is true: convoy neither syncs nor rolls back' };
  }
  if (ref !== undefined && ro !== undefined && ro.renderRef === ref) {
    const readyWhy =
      ready !== undefined && ready.status !== 'True' ? joinWhy(ready.reason, ready.message) : '';
    return {
      state: ro.state,
      message: ro.state === 'Progressing' ? readyWhy : joinWhy(ro.reason, ro.message),
    };
  }
  if (ref === undefined || !known) {
    return {
      state: 'Pending',
      message:
        ref === undefined
          ? 'waiting for the controller to render the source'
          : `waiting for the controller to render ${ref.slice(0, 19)}`,
    };
  }
  const attempted = r.status?.lastAttempted?.renderRef === ref || r.status?.currentRender?.renderRef === ref;
  if (ready === undefined || !attempted) return { state: 'Pending', message: '' };
  if (ready.status === 'True') return { state: 'Synced', message: '' };
  return { state: ready.reason || 'Pending', message: ready.message ?? '' };
}

/** Where the rollout of `wanted` (default: the current render) stands. */
export function progressSummary(
  r: Release,
  inv: ReleaseInventory | undefined,
  wanted?: string,
): ProgressSummary {
  const ref = followedRender(r, wanted);
  const s = r.status;
  const known =
    ref !== undefined &&
    [
      s?.currentRender,
      s?.lastAttempted,
      s?.rollout,
      s?.lastSuccessful,
      s?.lastHealthy,
      ...(s?.history ?? []),
    ].some((p) => p?.renderRef === ref);
  const ro = s?.rollout?.renderRef === ref ? s?.rollout : undefined;
  const waves = ref === undefined ? [] : wavesOf(r, inv, ref, ro?.state === 'Succeeded');
  const back = ro?.state === 'RolledBack' ? s?.lastHealthy?.renderRef : undefined;
  const objectsOf = back ?? ref;
  const entries = (inv?.entries ?? []).filter((e) => objectsOf !== undefined && e.renderRef === objectsOf);
  const hooks = (inv?.hooks ?? []).filter((h) => ref !== undefined && h.renderRef === ref);
  const { state, message } = stateOf(r, ref, known);
  const current = waves.find((w) => !w.done)?.wave;
  return {
    ...(ref === undefined ? {} : { renderRef: ref }),
    known,
    state,
    waves: {
      done: waves.filter((w) => w.done).length,
      total: waves.length,
      ...(current === undefined ? {} : { current }),
      list: waves,
    },
    objects: {
      healthy: objectsOf === undefined ? 0 : entries.filter((e) => isHealthyFor(e, objectsOf)).length,
      total: entries.length,
      ...(back !== undefined && back !== ref ? { renderRef: back } : {}),
    },
    hooks: {
      succeeded: hooks.filter((h) => h.state === 'Succeeded').length,
      failed: hooks.filter((h) => h.state === 'Failed').length,
      running: hooks.filter((h) => h.state !== 'Succeeded' && h.state !== 'Failed').length,
      list: hooks,
    },
    message,
  };
}
