// One way to give an e2e file something started once for all its tests: started in the file's before(),
// stopped in its after(), and read through the object returned, which throws when used before the start.
import { after, before } from 'node:test';

/**
 * A stand-in for an object that exists only later: every read goes to what `current()` returns then
 * (methods bound to it), and throws, naming `what`, while that is still undefined. It is not that object:
 * code that knows objects by identity (a WeakMap) must be given the one or the other throughout.
 */
export function readThrough<T extends object>(what: string, current: () => T | undefined): T {
  const target = () => {
    const now = current();
    if (now === undefined) throw new Error(`${what} is used before before() started it`);
    return now;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const now = target();
      const value: unknown = Reflect.get(now, key, now);
      return typeof value === 'function' ? value.bind(now) : value;
    },
    has: (_, key) => Reflect.has(target(), key),
  });
}

/**
 * `start()` in before() and `stop` in after(). The object returned reads through to what was started
 * (see readThrough). Call it once at the file's top level: Node 24 runs a file's top-level before
 * hooks without awaiting one before the next, so the file's own set-up belongs inside `start`.
 */
export function startedPerFile<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): T {
  let started: T | undefined;
  before(async () => {
    started = await start();
  });
  after(async () => {
    if (started !== undefined) await stop(started);
  });
  return readThrough(what, () => started);
}
