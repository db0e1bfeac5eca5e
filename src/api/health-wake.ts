// When a health change the observer records in a ReleaseInventory wakes the Release's controller by
// itself (docs/design.md#rollout-wake-ups): the controller watches the inventory through these two
// functions, and the observer asks the same question before it sends POST /sync for an edge — an edge
// this wake-up already carries needs no request (docs/design.md#controller-wake-ups). One definition, so
// the two processes cannot disagree about which wake-ups a /sync must carry.
import { type EntryKeys, inventoryKeyOf } from './keys.ts';
import type { VerificationStatus } from './schema/verification.ts';
import type { InventoryEntry, Release } from './types.ts';

type HealthFields = EntryKeys & Pick<InventoryEntry, 'state' | 'assessedRenderRef' | 'renderRef'>;

interface InventoryLike {
  readonly entries?: readonly HealthFields[];
  readonly verification?: Pick<VerificationStatus, 'renderRef' | 'startedAt' | 'phase' | 'checks'>;
}

/**
 * The Jobs job checks ask for (docs/design.md#verification): one asked for is the controller's to create,
 * one whose measurement was recorded its to delete, so either edge wakes it.
 */
function jobRuns(inv: InventoryLike | undefined): string {
  return (inv?.verification?.checks ?? [])
    .map((c) => c.run?.name)
    .filter((n) => n !== undefined)
    .join(',');
}

/**
 * The verification reached a phase verdict(R) reads differently (docs/design.md#verification): Passed,
 * Failed or Inconclusive, or Running again after Inconclusive. A soak that starts (Running) changes no
 * verdict, so it wakes nothing: at 1,000 Releases that was one reconcile, status write and Event each.
 */
function verificationChanged(oldInv: InventoryLike | undefined, newInv: InventoryLike | undefined): boolean {
  const o = oldInv?.verification;
  const n = newInv?.verification;
  if (n === undefined || n.phase === 'Running')
    return o?.phase === 'Inconclusive' && o.renderRef === n?.renderRef;
  return o?.renderRef !== n.renderRef || o.startedAt !== n.startedAt || o.phase !== n.phase;
}

/**
 * Whether the inventory now reads as done for the controller: every entry Healthy as assessed for the
 * render that applied it, and no verification still measuring. The wake-up of such a change goes in the
 * work queue's finish lane (docs/design.md#work-queue-priority): its reconcile records the render healthy;
 * a change on the way there (one entry of ten) waits its turn with the others, where it is coalesced.
 */
export function healthSettled(inv: InventoryLike | undefined): boolean {
  const entries = inv?.entries ?? [];
  if (entries.length === 0 || inv?.verification?.phase === 'Running') return false;
  return entries.every((e) => e.state === 'Healthy' && e.assessedRenderRef === e.renderRef);
}

/**
 * inventory.HealthChanged: the entry count, or an entry's state or assessedRenderRef, changed; or the
 * verification's phase, or the Jobs its job checks ask for (docs/design.md#verification).
 */
export function healthChanged(oldInv: InventoryLike | undefined, newInv: InventoryLike | undefined): boolean {
  if (verificationChanged(oldInv, newInv) || jobRuns(oldInv) !== jobRuns(newInv)) return true;
  const before = oldInv?.entries ?? [];
  const after = newInv?.entries ?? [];
  if (before.length !== after.length) return true;
  const old = new Map(before.map((e) => [inventoryKeyOf(e), e]));
  return after.some((e) => {
    const o = old.get(inventoryKeyOf(e));
    return o === undefined || o.state !== e.state || o.assessedRenderRef !== e.assessedRenderRef;
  });
}

/**
 * Whether a health change of its inventory wakes the Release: yes, unless its rollout is Failed or
 * RolledBack under a failurePolicy — those wait for the interval or a /sync, so a flapping object does not
 * reconcile them again and again. Without a failurePolicy it wakes, for lastHealthy.
 */
export function healthChangeWakes(release: Release | undefined): boolean {
  const state = release?.spec?.failurePolicy === undefined ? undefined : release.status?.rollout?.state;
  return state !== 'Failed' && state !== 'RolledBack';
}
