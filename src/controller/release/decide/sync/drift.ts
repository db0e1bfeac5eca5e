// selfHeal's wake-up: the drift loop flags entries in the inventory; an entry turning drifted must
// reach the controller even when the observer's /sync arrived before the cache showed the flag.
import type { InventoryKey } from '../../../../api/types.ts';
import { entryKey } from './inventory.ts';

type DriftEntry = InventoryKey & { readonly drifted?: boolean };

interface DriftInventory {
  readonly entries?: readonly DriftEntry[];
}

/** True when some entry is drifted now and was not before (a new entry counts when drifted). */
export function driftAppeared(
  before: DriftInventory | undefined,
  after: DriftInventory | undefined,
): boolean {
  const was = new Set((before?.entries ?? []).filter((e) => e.drifted === true).map(entryKey));
  return (after?.entries ?? []).some((e) => e.drifted === true && !was.has(entryKey(e)));
}

const describeKey = (e: InventoryKey) => `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`;

/**
 * The note (an Event, a log line) of a sync that only heals drift: the render is the one already applied
 * and selfHeal re-applies it because the drift loop flagged entries. Undefined for any other sync, so a
 * heal is never mistaken for a rollout and a rollout never reported as a heal.
 */
export function selfHealNote(input: {
  readonly selfHeal: boolean;
  readonly forced: boolean;
  readonly renderRef: string;
  readonly lastSuccessfulRef: string | undefined;
  readonly entries: readonly DriftEntry[];
}): string | undefined {
  if (!input.selfHeal || input.forced || input.lastSuccessfulRef !== input.renderRef) return undefined;
  const drifted = input.entries.filter((e) => e.drifted === true);
  if (drifted.length === 0) return undefined;
  const names = drifted.slice(0, 5).map(describeKey).join(', ');
  const more = drifted.length > 5 ? ` and ${drifted.length - 5} more` : '';
  return `self-heal: re-applying ${drifted.length} drifted object${drifted.length === 1 ? '' : 's'} (${names}${more})`;
}
