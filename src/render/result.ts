// A success-or-problems value for the pure steps of rendering, so problems from several files can be
// collected before failing instead of stopping at the first.
import type { Problem } from './errors.ts';

export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problems: readonly Problem[] };

export function ok<T>(value: T): Checked<T> {
  return { ok: true, value };
}

export function fail<T = never>(problems: readonly Problem[]): Checked<T> {
  return { ok: false, problems };
}
