// Edge triggers of one health pass (docs/design.md#controller-wake-ups): the observer sends
// POST /sync only when something changed in this pass, never on a steady pass, and not for an edge its own
// inventory write already carries to the controller.
import { healthChanged, healthChangeWakes } from '../../api/health-wake.ts';
import type { InventoryEntry, Release } from '../../api/types.ts';
import { entryKey } from './types.ts';

/**
 * The frontier is the highest wave among entries of the newest render (lastAttempted's), not
 * among leftovers of an older render. True when every newest-render entry of that wave is Healthy
 * now and at least one of them was not Healthy for its render before this pass.
 */
export function frontierWaveCompleted(
  before: readonly InventoryEntry[],
  after: readonly InventoryEntry[],
  newestRenderRef: string | undefined,
): boolean {
  if (newestRenderRef === undefined) return false;
  const current = after.filter((e) => e.renderRef === newestRenderRef);
  if (current.length === 0) return false;
  // An entry recorded without a wave is in wave 0.
  const frontier = Math.max(...current.map((e) => e.wave ?? 0));
  const wave = current.filter((e) => (e.wave ?? 0) === frontier);
  if (!wave.every((e) => e.state === 'Healthy')) return false;
  const prior = new Map(before.map((e) => [entryKey(e), e]));
  return wave.some((e) => {
    const p = prior.get(entryKey(e));
    // Healthy for an older render does not count: the wave gate needs health for this render.
    return p?.state !== 'Healthy' || p.assessedRenderRef !== e.renderRef;
  });
}

/** Some entry (as read before this pass wrote) carries a render not yet assessed. */
export function renderAdvanced(before: readonly InventoryEntry[]): boolean {
  return before.some((e) => e.renderRef !== undefined && e.renderRef !== e.assessedRenderRef);
}

/** What one pass saw, for controllerWakeNeeded. */
export interface WakeInput {
  readonly release: Release;
  /** Hooks that reached a terminal state in this pass. */
  readonly hooksFinished: number;
  /** The assessment of this pass; undefined when there was none (no healthAssessment, or it failed). */
  readonly assessment:
    | {
        readonly before: readonly InventoryEntry[];
        readonly after: readonly InventoryEntry[];
        /** The inventory parts this pass wrote: none when its judgement equalled the stored one. */
        readonly written: readonly unknown[];
      }
    | undefined;
}

/**
 * Whether the pass sends POST /sync. A finished hook always does: the controller does not watch hook
 * states. A health edge (render advanced, frontier wave complete) does only when the pass's inventory write
 * does not wake the controller by itself — that is, when the write changed no entry's state or
 * assessedRenderRef (an entry in flux keeps its old judgement), or when the Release's rollout waits for a
 * /sync (healthChangeWakes: Failed or RolledBack). One wake-up, not two: the request cost the Release an
 * annotation write, a read and an Event (docs/design.md#controller-wake-ups). Pure.
 */
export function controllerWakeNeeded(i: WakeInput): boolean {
  if (i.hooksFinished > 0) return true;
  const a = i.assessment;
  if (a === undefined) return false;
  const edge =
    renderAdvanced(a.before) ||
    frontierWaveCompleted(a.before, a.after, i.release.status?.lastAttempted?.renderRef);
  if (!edge) return false;
  const carried =
    a.written.length > 0 &&
    healthChanged({ entries: a.before }, { entries: a.after }) &&
    healthChangeWakes(i.release);
  return !carried;
}
