// Semantic versions and the range syntax Flux and Helm take (Masterminds/semver constraints): picking
// the newest tag or chart version that matches `>=1.2.0 <2`, `^1.2`, `~1.2.3`, `1.x`, `*` or
// `1.0 || 2.1`. One helper for every source that resolves a range (OCI tags, chart repositories). Pure.
//
// Ranges follow Masterminds: a comma or space between comparators means AND, `||` means OR; a
// pre-release version matches only a range whose comparators carry a pre-release themselves.

export type SemVer = {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Dot-separated pre-release identifiers; empty for a release. */
  readonly prerelease: readonly string[];
  /** The text it was parsed from (a tag keeps its leading "v"). */
  readonly raw: string;
};

const VERSION =
  /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** A version as tags write it ("1.2.3", "v1.2", "1.0.0-rc.1+build"), or undefined when it is not one. */
export function parseVersion(raw: string): SemVer | undefined {
  if (raw.length > 256) return undefined;
  const m = VERSION.exec(raw);
  if (m === null) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2] ?? 0),
    patch: Number(m[3] ?? 0),
    prerelease: m[4] === undefined ? [] : m[4].split('.'),
    raw,
  };
}

/** Negative, zero or positive as a sorts before, equal to or after b (build metadata ignored). */
export function compareVersions(a: SemVer, b: SemVer): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0)
    return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

type Op = '=' | '!=' | '>' | '>=' | '<' | '<=';
type Comparator = { readonly op: Op; readonly v: SemVer };
/** OR of ANDs. */
export type Range = { readonly raw: string; readonly sets: readonly (readonly Comparator[])[] };

export class SemverRangeError extends Error {
  override readonly name = 'SemverRangeError';
}

const PARTIAL =
  /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z-.]+))?(?:\+[0-9A-Za-z-.]+)?$/;

/** Parses a range; throws RangeError naming what it could not read. */
export function parseRange(raw: string): Range {
  if (raw.trim() === '' || raw.length > 1024)
    throw new SemverRangeError(`semver range ${JSON.stringify(raw)} is empty or too long`);
  const sets = raw.split('||').map((alt) => {
    // "1.2 - 1.4" is a hyphen range; otherwise comparators are separated by commas or spaces, and an
    // operator may be followed by spaces (">= 1.2").
    const hyphen = /^\s*(\S+)\s+-\s+(\S+)\s*$/.exec(alt);
    if (hyphen !== null)
      return [...expand('>=', hyphen[1] ?? '', raw), ...expand('<=', hyphen[2] ?? '', raw)];
    const tokens = alt
      .replace(/(>=|<=|!=|=>|=<|[<>=~^])\s+/g, '$1')
      .split(/[\s,]+/)
      .filter((t) => t !== '');
    if (tokens.length === 0)
      throw new SemverRangeError(`semver range ${JSON.stringify(raw)} has an empty alternative`);
    return tokens.flatMap((t) => {
      const m = /^(>=|<=|!=|=>|=<|[<>=~^]|~>)?(.*)$/.exec(t);
      const op = m?.[1] ?? '';
      return expand(op === '=>' ? '>=' : op === '=<' ? '<=' : op === '~>' ? '~' : op, m?.[2] ?? '', raw);
    });
  });
  return { raw, sets };
}

/** One comparator, with wildcards, tilde and caret, as plain comparators. */
function expand(op: string, text: string, raw: string): Comparator[] {
  const m = PARTIAL.exec(text);
  if (m === null)
    throw new SemverRangeError(`semver range ${JSON.stringify(raw)}: cannot read ${JSON.stringify(text)}`);
  const wild = (s: string | undefined) => s === undefined || /^[xX*]$/.test(s);
  const parts = [m[1], m[2], m[3]];
  const given = parts.findIndex(wild) < 0 ? 3 : parts.findIndex(wild);
  const n = parts.map((p) => (wild(p) ? 0 : Number(p)));
  const [maj = 0, min = 0, pat = 0] = n;
  const pre = m[4] === undefined ? [] : m[4].split('.');
  const v = (major: number, minor: number, patch: number, prerelease: readonly string[] = []): SemVer => ({
    major,
    minor,
    patch,
    prerelease,
    raw: `${major}.${minor}.${patch}${prerelease.length ? `-${prerelease.join('.')}` : ''}`,
  });
  const floor = v(maj, min, pat, pre);
  // The smallest version above every match of the partial version: 1.x → 2.0.0-0 (so no 2.0.0 pre-release sneaks in).
  const above = (level: number) =>
    level === 0 ? undefined : level === 1 ? v(maj + 1, 0, 0, ['0']) : v(maj, min + 1, 0, ['0']);
  const ge = (x: SemVer): Comparator => ({ op: '>=', v: x });
  const lt = (x: SemVer | undefined): Comparator[] => (x === undefined ? [] : [{ op: '<', v: x }]);
  switch (op) {
    case '':
    case '=':
      return given === 3 ? [{ op: '=', v: floor }] : [ge(floor), ...lt(above(given))];
    case '!=':
      return given === 3 ? [{ op: '!=', v: floor }] : [];
    case '>':
      return given === 3
        ? [{ op: '>', v: floor }]
        : given === 0
          ? [{ op: '<', v: v(0, 0, 0, ['0']) }]
          : [ge(above(given) ?? floor)];
    case '>=':
      return [ge(floor)];
    case '<':
      return [{ op: '<', v: given === 3 ? floor : v(maj, min, pat, ['0']) }];
    case '<=':
      return given === 3 ? [{ op: '<=', v: floor }] : lt(above(given) ?? floor);
    case '~':
      // ~1.2.3 → >=1.2.3 <1.3.0; ~1 → >=1.0.0 <2.0.0
      return [ge(floor), ...lt(above(given === 1 ? 1 : 2))];
    case '^': {
      // ^1.2.3 → <2.0.0; ^0.2.3 → <0.3.0; ^0.0.3 → <0.0.4
      if (maj > 0 || given === 1) return [ge(floor), ...lt(v(maj + 1, 0, 0, ['0']))];
      if (min > 0 || given === 2) return [ge(floor), ...lt(v(0, min + 1, 0, ['0']))];
      return [ge(floor), ...lt(v(0, 0, pat + 1, ['0']))];
    }
    default:
      throw new SemverRangeError(
        `semver range ${JSON.stringify(raw)}: unknown operator ${JSON.stringify(op)}`,
      );
  }
}

function holds(c: Comparator, x: SemVer): boolean {
  const d = compareVersions(x, c.v);
  switch (c.op) {
    case '=':
      return d === 0;
    case '!=':
      return d !== 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
  }
}

/** Whether the version satisfies the range (pre-releases only where a comparator of the same core allows them). */
export function satisfies(x: SemVer, range: Range): boolean {
  return range.sets.some((set) => {
    if (!set.every((c) => holds(c, x))) return false;
    if (x.prerelease.length === 0) return true;
    return set.some(
      (c) =>
        c.v.prerelease.length > 0 &&
        !(c.v.prerelease.length === 1 && c.v.prerelease[0] === '0' && c.op === '<') &&
        c.v.major === x.major &&
        c.v.minor === x.minor &&
        c.v.patch === x.patch,
    );
  });
}

/** The newest of the candidates that satisfies the range; candidates that are not versions are ignored. */
export function newestMatching(candidates: Iterable<string>, range: Range): string | undefined {
  let best: SemVer | undefined;
  for (const c of candidates) {
    const v = parseVersion(c);
    if (v === undefined || !satisfies(v, range)) continue;
    if (best === undefined || compareVersions(v, best) > 0) best = v;
  }
  return best?.raw;
}
