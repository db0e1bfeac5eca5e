// Bounded concurrency: one helper for every loop that runs an async job over a list with at most
// `limit` jobs in flight (the deployer's applies, prune's reads and deletes, the observer's live reads),
// so "how many at once", "what a failure does" and "when to stop starting" are decided in one place.

/**
 * Runs `fn` over `items` in order, at most `limit` (at least 1) at once. A job that returns 'stop' lets
 * the jobs in flight finish but starts no more. A job that throws does not stop the others; once all
 * have settled the first error thrown (in time) is rethrown, so nothing is left running behind the caller.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<'stop' | undefined>,
): Promise<void> {
  let next = 0;
  let stopped = false;
  let error: { readonly e: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!stopped && next < items.length) {
      const index = next++;
      try {
        if ((await fn(items[index] as T, index)) === 'stop') stopped = true;
      } catch (e) {
        error ??= { e };
      }
    }
  };
  const workers = Math.min(Math.max(Math.floor(limit), 1), items.length);
  await Promise.all(Array.from({ length: workers }, worker));
  if (error !== undefined) throw error.e;
}
