// A CRD's `pattern` checked as the API server checks it: RE2 (@bufbuild/re2, the engine @bufbuild/cel's
// `matches` runs, a port of the server's), an unanchored search, in time linear in the string. A pattern
// it cannot compile, or a pair too big to test cheaply, is not checked here: the server's dry run is.
import { RE2JS } from '@bufbuild/re2';

/** A pattern longer than this is left to the server. */
const maxPatternChars = 2048;
/**
 * Program instructions × string length above which the test is left to the server: RE2 is O(m·n), and
 * m is the compiled program's (\pL{1000} is 8 characters and thousands of instructions: 0.8 s on a
 * 5,000-character string). About 0.1 s at most.
 */
const maxWork = 1_000_000;
/** Compiled patterns kept per process; past this they are compiled each time. */
const maxCached = 512;

const cache = new Map<string, RE2JS | null>();

/**
 * Compiling costs about the size of the program, which counted repetitions grow: \pL{1000} took 0.5 s.
 * Patterns whose counts add up to more than this (a tenth of it with Unicode classes) are left to the
 * server; RE2 itself refuses nested counts above 1,000. A DNS label's {1,63} twice is 126.
 */
const maxRepeat = 1000;

function tooCostly(pattern: string): boolean {
  let sum = 0;
  for (const m of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) sum += Math.max(Number(m[1]), Number(m[2] || 0));
  return sum > maxRepeat || (/\\[pP]/.test(pattern) && sum > maxRepeat / 10);
}

/** Whether `pattern` is compiled already (so testing it costs no compile). */
export function patternCompiled(pattern: string): boolean {
  return cache.has(pattern);
}

function compiled(pattern: string): RE2JS | null {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2JS | null = null;
  if (!tooCostly(pattern)) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      // Not RE2 as this engine reads it: the server decides (it refuses the CRD if it cannot compile it).
      re = null;
    }
  }
  if (cache.size < maxCached) cache.set(pattern, re);
  return re;
}

/** true or false when checked; undefined when the pattern or the pair is left to the server. */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  if (pattern.length > maxPatternChars) return undefined;
  const re = compiled(pattern);
  if (re === null || re.re2Input.prog.numInst() * value.length > maxWork) return undefined;
  return re.test(value);
}
