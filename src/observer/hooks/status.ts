// writeHookStatus's body as a pure function: every hook entry that has a state is sent (keys: name),
// the polled ones with their new verdict; plus whether anything changed and whether a hook reached a
// terminal state in this pass (the "hook batch complete" edge).

import { formatTime } from '../../api/time.ts';
import type { InventoryHook } from '../../api/types.ts';
import type { HookVerdict } from './decide.ts';

/** The fields convoy-hook-status owns in one hook entry. */
export interface HookStatusItem {
  readonly name: string;
  readonly state: 'Running' | 'Succeeded' | 'Failed';
  readonly reason?: string;
  readonly message?: string;
  readonly finishedAt?: string;
}

export interface HookStatusPlan {
  /** What the apply sends: every hook that has a state after this pass. */
  readonly items: readonly HookStatusItem[];
  /** False: the cached entries already hold exactly these values; the write is skipped. */
  readonly changed: boolean;
  /** Names of hooks that became terminal in this pass. */
  readonly finished: readonly string[];
  /** Names of hooks Running after this pass (pending targets of the recheck). */
  readonly running: readonly string[];
}

export function planHookStatus(
  hooks: readonly InventoryHook[],
  verdicts: ReadonlyMap<string, HookVerdict>,
  now: Date,
): HookStatusPlan {
  const items: HookStatusItem[] = [];
  const finished: string[] = [];
  const running: string[] = [];
  let changed = false;
  for (const h of hooks) {
    const v = verdicts.get(h.name);
    let item: HookStatusItem | undefined;
    if (v !== undefined) {
      const terminal = v.state !== 'Running';
      // finishedAt never before createdAt: the controller accepts a result only when finishedAt >= createdAt,
      // and the two processes' clocks may differ.
      const at = terminal ? notBefore(formatTime(now), h.createdAt) : undefined;
      item = {
        name: h.name,
        state: v.state,
        reason: v.reason,
        ...(v.message !== '' ? { message: v.message } : {}),
        ...(at !== undefined ? { finishedAt: at } : {}),
      };
      if (terminal) finished.push(h.name);
    } else if (h.state !== undefined) {
      item = {
        name: h.name,
        state: h.state,
        ...(h.reason !== undefined ? { reason: h.reason } : {}),
        ...(h.message !== undefined ? { message: h.message } : {}),
        ...(h.finishedAt !== undefined ? { finishedAt: h.finishedAt } : {}),
      };
    }
    if (item === undefined) continue;
    items.push(item);
    if (item.state === 'Running') running.push(h.name);
    if (
      v !== undefined &&
      (h.state !== item.state ||
        h.reason !== item.reason ||
        h.message !== item.message ||
        h.finishedAt !== item.finishedAt)
    ) {
      changed = true;
    }
  }
  return { items, changed, finished, running };
}

function notBefore(t: string, floor: string | undefined): string {
  if (floor === undefined) return t;
  const f = Date.parse(floor);
  return Number.isNaN(f) || Date.parse(t) >= f ? t : formatTime(new Date(f));
}
