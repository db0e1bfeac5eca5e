// Old renders out of the render store after a pass that newly applied one (docs/design.md#render-store):
// the store keeps historyLimit renders plus lastHealthy, lastSuccessful and the pin. A failed gc is logged
// and left to the next applying pass; it never fails the reconcile.
import type { Release } from '../../../api/types.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { gcDue, mayBeStored, rendersToKeep } from '../../../store/keep.ts';
import type { ControllerStatus } from '../decide/status.ts';
import type { ReleaseDeps } from '../deps.ts';
import type { Outcome } from '../outcome.ts';

export async function collectRenders(
  release: Release,
  status: ControllerStatus,
  outcome: Outcome,
  deps: Pick<ReleaseDeps, 'store' | 'memory' | 'log'>,
): Promise<void> {
  if ((status.history?.length ?? 0) === 0 || status.history === undefined || outcome.applied === undefined)
    return;
  const uid = release.metadata.uid ?? '';
  const keep = rendersToKeep(status, release.spec);
  try {
    if (gcDue(mayBeStored(deps.memory.mayBeStored.get(uid), release.status, outcome.applied.renderRef), keep))
      await deps.store.gc(namespaceOf(release), nameOf(release), keep);
    deps.memory.mayBeStored.set(uid, new Set(keep));
  } catch (err) {
    deps.log.warn({ err: String(err) }, 'render store gc failed');
  }
}
