// Reading a whole collection page by page. A continue token outlives its snapshot only so long: once
// etcd compacts past it (and the API server's watch cache no longer holds it) the next page answers
// 410 Gone. Like client-go's pager, start over from the first page for a fresh snapshot rather than fail.
import { isGone } from './errors.ts';

export interface Page<T> {
  readonly items: readonly T[];
  readonly continue: string | undefined;
}

/** Follows continue tokens; on 410 Gone restarts from the first page, at most `maxRestarts` times. */
export async function collectPages<T>(
  fetchPage: (continueToken: string | undefined) => Promise<Page<T>>,
  maxRestarts = 3,
): Promise<T[]> {
  for (let restarts = 0; ; restarts++) {
    const out: T[] = [];
    let cont: string | undefined;
    try {
      do {
        const page = await fetchPage(cont);
        out.push(...page.items);
        cont = page.continue;
      } while (cont !== undefined);
      return out;
    } catch (err) {
      // A 410 on the first page is not an expired token: nothing to restart.
      if (cont === undefined || !isGone(err) || restarts >= maxRestarts) throw err;
    }
  }
}
