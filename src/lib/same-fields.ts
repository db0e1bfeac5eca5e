// sameFields: the one field-by-field comparison of two plain records, for the checks that skip a write
// (or keep a timestamp) when what would be sent is stored already: a condition, a summary, an attempt.
/** True when `a` is defined and holds the same value (===) as `b` in every one of `keys`. */
export function sameFields<T extends object>(a: T | undefined, b: T, keys: readonly (keyof T)[]): boolean {
  return a !== undefined && keys.every((k) => a[k] === b[k]);
}
