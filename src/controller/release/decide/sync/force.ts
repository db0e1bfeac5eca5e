// Whether a forced sync is pending: the force-sync-at annotation names a request that status has not recorded
// as handled. Status records it even when the reconcile fails (docs/design.md#status-assembly), so one
// request has one effect.
import { ANNOTATION_FORCE_SYNC_AT } from '../../../../api/constants.ts';

export function forcedSyncPending(
  annotations: Readonly<Record<string, string>> | undefined,
  status: { readonly lastHandledForceSyncAt?: string | undefined } | undefined,
): boolean {
  const at = annotations?.[ANNOTATION_FORCE_SYNC_AT];
  return at !== undefined && at !== '' && at !== status?.lastHandledForceSyncAt;
}
