// Poll-with-timeout for tests: the one place a test waits for the cluster to reach a state.
// On timeout the error names what was awaited and the last value or error seen, so a red
// test says where it stood instead of just "timed out".
import { inspect } from 'node:util';

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/**
 * Calls `fn` until it returns something other than undefined/false and returns that.
 * Errors thrown by `fn` count as "not yet" (the API may be briefly unavailable) and are
 * reported if the wait times out.
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last: { kind: 'value'; value: unknown } | { kind: 'error'; error: unknown } | undefined;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      const value = await fn();
      if (value !== undefined && value !== false) return value;
      last = { kind: 'value', value };
    } catch (error) {
      last = { kind: 'error', error };
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, remaining)));
  }
  throw new WaitTimeoutError(
    `timed out after ${timeoutMs}ms (${attempts} attempts) waiting for ${what}; last ${describe(last)}`,
  );
}

/** Waits until `count()` has grown by `n` from what it is when called (passes of a loop, requests seen). */
export function waitForMore(
  what: string,
  count: () => number,
  n: number,
  opts: WaitOptions = {},
): Promise<true> {
  const start = count();
  return waitFor(`${n} more ${what}`, async () => count() >= start + n, opts);
}

function describe(
  last: { kind: 'value'; value: unknown } | { kind: 'error'; error: unknown } | undefined,
): string {
  if (last === undefined) return 'attempt: none';
  switch (last.kind) {
    case 'value':
      return `value: ${inspect(last.value, { depth: 4, breakLength: Infinity })}`;
    case 'error':
      return `error: ${last.error instanceof Error ? last.error.message : inspect(last.error)}`;
  }
}
