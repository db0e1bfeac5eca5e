// observe: the reconcile's one snapshot of the observer's work (decide/pass.ts Observed), read from the
// process's caches: the Release's inventory and the observer's liveness for its shard
// (docs/design.md#reconcile-order).
import type { Release } from '../../../api/types.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { type Observed, verificationInput } from '../decide/pass.ts';
import type { ReleaseDeps } from '../deps.ts';

export function observe(
  release: Release,
  deps: Pick<ReleaseDeps, 'cachedInventory' | 'observerLive'>,
): Observed {
  const inventory = deps.cachedInventory(namespaceOf(release), nameOf(release))?.inventory;
  return {
    inventory,
    observerLive: deps.observerLive(release),
    verification: verificationInput(release, inventory),
  };
}
