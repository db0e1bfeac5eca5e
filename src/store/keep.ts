// Which stored renders survive gc: the historyLimit newest of status.history plus every
// render status or spec still points at. Pure; the caller hands the result to gc().

export const DEFAULT_HISTORY_LIMIT = 10;

type RefHolder = { readonly renderRef?: string | undefined } | undefined;

export type KeepStatus = {
  readonly history?: readonly { readonly renderRef: string; readonly appliedAt?: string | undefined }[];
  readonly lastHealthy?: RefHolder;
  readonly lastSuccessful?: RefHolder;
  /** Kept too: gc runs after persist but before status assembly adds the render to history. */
  readonly lastAttempted?: RefHolder;
};

export type KeepSpec = {
  readonly historyLimit?: number | undefined;
  readonly pin?: RefHolder;
};

export function rendersToKeep(status: KeepStatus, spec: KeepSpec): Set<string> {
  const limit = Math.max(0, Math.floor(spec.historyLimit ?? DEFAULT_HISTORY_LIMIT));
  const history = (status.history ?? []).map((h, i) => ({ h, i }));
  // Newest first by appliedAt; among equal times the later entry (appended last) is newer.
  history.sort((a, b) => (b.h.appliedAt ?? '').localeCompare(a.h.appliedAt ?? '') || b.i - a.i);
  const keep = new Set<string>();
  for (const { h } of history) {
    if (keep.size >= limit) break;
    keep.add(h.renderRef);
  }
  for (const holder of [status.lastHealthy, status.lastSuccessful, status.lastAttempted, spec.pin]) {
    const ref = holder?.renderRef;
    if (ref !== undefined && ref !== '') keep.add(ref);
  }
  return keep;
}
