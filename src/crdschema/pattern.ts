// A CRD's `pattern` checked as the API server checks it: RE2 (@bufbuild/re2, the engine @bufbuild/cel's
// `matches` runs, a port of the server's), an unanchored search, in time linear in the string. A pattern
// it cannot compile, or a pair too big to test cheaply, is not checked here: the server's dry run is.
import { RE2JS } from '@bufbuild/re2';

/** A pattern longer than this is left to the server. */
const maxPatternChars = 2048;
/** Pattern length × string length above which the test is left to the server (RE2 is O(m·n)). */
const maxWork = 20_000_000;
/** Compiled patterns kept per process; past this they are compiled each time. */
const maxCached = 512;

const cache = new Map<string, RE2JS | null>();

function compiled(pattern: string): RE2JS | null {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2JS | null;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    // Not RE2 as this engine reads it: the server decides (it refuses the CRD if it cannot compile it).
    re = null;
  }
  if (cache.size < maxCached) cache.set(pattern, re);
  return re;
}

/** true or false when checked; undefined when the pattern or the pair is left to the server. */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  if (pattern.length > maxPatternChars || pattern.length * value.length > maxWork) return undefined;
  const re = compiled(pattern);
  return re === null ? undefined : re.test(value);
}
