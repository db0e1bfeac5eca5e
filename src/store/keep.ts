// Which stored renders survive gc: the historyLimit newest of status.history plus every
// render status or spec still points at. Pure; the caller hands the result to gc().

export const DEFAULT_HISTORY_LIMIT = 10;

type RefHolder = { readonly renderRef?: string | undefined } | undefined;

export type KeepStatus = {
  readonly history?: readonly {
    readonly renderRef: string;
    readonly appliedAt?: string | undefined;
    readonly attemptedAt?: string | undefined;
  }[];
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
  // Newest first by appliedAt (attemptedAt for a render never applied); among equal times the later
  // entry (appended last) is newer.
  const at = (h: { readonly appliedAt?: string | undefined; readonly attemptedAt?: string | undefined }) =>
    h.appliedAt ?? h.attemptedAt ?? '';
  history.sort((a, b) => at(b.h).localeCompare(at(a.h)) || b.i - a.i);
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

/**
 * Whether the status names `renderRef` anywhere a stored render is kept from (history, lastHealthy,
 * lastSuccessful, lastAttempted): false means this Release never stored it, so a put may create it
 * straight away (PutOptions.expectNew).
 */
export function namesRender(status: KeepStatus | undefined, renderRef: string): boolean {
  if (status === undefined) return false;
  return [status.lastHealthy, status.lastSuccessful, status.lastAttempted, ...(status.history ?? [])].some(
    (h) => h?.renderRef === renderRef,
  );
}

/**
 * Whether gc has anything to do: `mayBeStored` is what this process knows may be stored for the Release
 * (what it kept at its last gc plus every render it put since); undefined when it has not collected the
 * Release yet — an earlier process may have left renders behind (a put whose status write never
 * landed), so gc runs. Else only a render that may be stored and is no longer kept makes a gc worth its
 * LIST of the Release's Secrets.
 */
export function gcDue(mayBeStored: ReadonlySet<string> | undefined, keep: ReadonlySet<string>): boolean {
  return mayBeStored === undefined || [...mayBeStored].some((r) => !keep.has(r));
}

/**
 * What may be stored for a Release before this reconcile's gc: what the process knows (`known`), else for
 * a Release never attempted before (no history, no lastAttempted) only the render it just applied — its
 * first gc would be a LIST of nothing to collect. A render an earlier process put and never recorded
 * (it died before its status write) waits for the first gc of the next process that starts.
 */
export function mayBeStored(
  known: ReadonlySet<string> | undefined,
  status: KeepStatus | undefined,
  applied: string,
): ReadonlySet<string> | undefined {
  if (known !== undefined) return known;
  return neverAttempted(status) ? new Set([applied]) : undefined;
}

/** No attempt recorded yet: no lastAttempted and no history (a new Release, or one whose dry runs failed). */
export function neverAttempted(status: KeepStatus | undefined): boolean {
  return status?.lastAttempted?.renderRef === undefined && (status?.history?.length ?? 0) === 0;
}
