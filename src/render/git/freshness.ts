// How fresh a git read must be. A sync requested after a push (a Receiver, `convoy sync`) must see the
// branch as the server had it after the request was seen: an answer read from the server before that
// (an in-flight fetch it could join, the cached ref) may name the old commit, and the push would then
// wait for the next interval. Times are one process's monotonic clock (performance.now()): the request
// is dated when this process saw it, never by another machine's clock. Pure decisions, table-tested.

/**
 * Whether a read started at `startedAt` answers a request seen at `readAfter` (undefined: any read
 * does — an interval poll). A read that starts after the request was seen started after the push.
 */
export function answers(startedAt: number, readAfter: number | undefined): boolean {
  return readAfter === undefined || startedAt >= readAfter;
}

export type RefReadPlan =
  /** A read of the server started after the request and finished: the cached ref is new enough. */
  | { readonly kind: 'cached' }
  /**
   * Fetch at once: a request came after the last read of the server, so the ref most likely moved;
   * asking first (ls-remote) would only add a round trip and a process.
   */
  | { readonly kind: 'fetch' }
  /** An interval poll: ask the server where the ref points and fetch only when it moved. */
  | { readonly kind: 'poll' };

/**
 * How to read a branch or tag. `lastRead`: when the last read of this ref from the server that
 * succeeded started (undefined: none in this process). An interval poll takes a read that started
 * within `pollWindowMs` of `now` (the Release's interval): the ref is then at most one interval old, as
 * an interval promises, and a repository shared by many Releases is asked once per interval.
 */
export function planRefRead(
  readAfter: number | undefined,
  lastRead: number | undefined,
  now = 0,
  pollWindowMs = 0,
): RefReadPlan {
  if (readAfter === undefined) {
    const fresh = lastRead !== undefined && pollWindowMs > 0 && now - lastRead < pollWindowMs;
    return fresh ? { kind: 'cached' } : { kind: 'poll' };
  }
  if (lastRead !== undefined && lastRead >= readAfter) return { kind: 'cached' };
  return { kind: 'fetch' };
}
