// The one status write of a reconcile (syncHandler and the deletion path): Server-Side Apply under the
// controller's field manager with the read object's uid and resourceVersion as preconditions, so a status
// built from an old read can never land over a newer one (SSA would drop every owned field the old read
// lacked: a stale read once erased status.lastHealthy). What was written is handed to deps.noteWritten,
// so the next reconcile of this key reads it even before the informer's watch event arrives.
import { isDeepStrictEqual } from 'node:util';
import { API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import type { Release, ReleaseStatus } from '../../../api/types.ts';
import { isConflict } from '../../../kube/errors.ts';
import { writeStatus } from '../../../kube/status.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import type { ReleaseDeps } from '../deps.ts';

/** How long to wait before re-reading a Release whose status write lost a race (its cache is catching up). */
export const CONFLICT_REQUEUE_MS = 200;

export type StatusWriteOutcome = 'written' | 'unchanged' | 'conflict';

const controllerEntry = (r: Release) =>
  r.metadata.managedFields?.find(
    (m) => m.manager === FIELD_MANAGERS.controller && m.subresource === 'status' && m.operation === 'Apply',
  );

export async function writeReleaseStatus(
  release: Release,
  status: ReleaseStatus,
  deps: Pick<ReleaseDeps, 'local' | 'noteWritten'>,
): Promise<StatusWriteOutcome> {
  const target = {
    kind: 'Release',
    namespace: namespaceOf(release),
    name: nameOf(release),
  };
  const write = async (basis: Release): Promise<StatusWriteOutcome> => {
    const r = await writeStatus<Release>(deps.local, target, status as Record<string, unknown>, {
      fieldManager: FIELD_MANAGERS.controller,
      cached: basis,
      precondition: true,
    });
    if (!r.written) return 'unchanged';
    deps.noteWritten?.(release, r.object);
    return 'written';
  };
  try {
    return await write(release);
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
  // Most conflicts are the observer's writes (Healthy, Drifted) landing during this pass: they touch none
  // of the controller's fields, so what this pass decided still stands. Only when the controller's own
  // fields changed since the read (another replica, a write this process has not seen) must it start over.
  const fresh = await deps.local.get<Release>({ apiVersion: API_VERSION, ...target });
  if (fresh === undefined || fresh.metadata.uid !== release.metadata.uid) return 'conflict';
  if (!isDeepStrictEqual(controllerEntry(fresh), controllerEntry(release))) return 'conflict';
  try {
    return await write(fresh);
  } catch (error) {
    if (isConflict(error)) return 'conflict';
    throw error;
  }
}
