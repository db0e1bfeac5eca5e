// How drift is told to people: an entry's driftMessage ("spec.replicas: 3 → 5; data.color: "blue" →
// "red"") and the short form the Drifted condition lists per object. Values of a Secret are never
// printed, only its paths: the inventory and the Release status are readable by more people.
import type { Difference, DriftResult } from './detect.ts';

/** How many differences an entry's message names before "+N more". */
const SHOWN = 3;
const MAX_VALUE = 60;
/** The inventory schema's maxLength of driftMessage. */
export const MAX_DRIFT_MESSAGE = 4096;

export type Drifted = Exclude<DriftResult, { kind: 'inSync' }>;

export function formatValue(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length <= MAX_VALUE ? s : `${s.slice(0, MAX_VALUE - 1)}…`;
}

export function describeDifference(d: Difference, secret: boolean): string {
  switch (d.kind) {
    case 'missing':
      return secret ? `${d.path} missing` : `${d.path}: ${formatValue(d.desired)} → (missing)`;
    case 'changed':
      return secret ? `${d.path} differs` : `${d.path}: ${formatValue(d.desired)} → ${formatValue(d.live)}`;
  }
}

/** The entry's driftMessage. */
export function driftMessage(kind: string, r: Drifted): string {
  switch (r.kind) {
    case 'deleted':
      return 'deleted';
    case 'drifted': {
      const secret = kind === 'Secret';
      const shown = r.differences.slice(0, SHOWN).map((d) => describeDifference(d, secret));
      const more = r.differences.length - shown.length;
      return clamp(`${shown.join('; ')}${more > 0 ? `; +${more} more` : ''}`, MAX_DRIFT_MESSAGE);
    }
  }
}

/** The first difference only, for the condition's list of objects. */
export function shortDrift(kind: string, r: Drifted): string {
  switch (r.kind) {
    case 'deleted':
      return 'deleted';
    case 'drifted': {
      const first = r.differences[0];
      const head = first === undefined ? 'drifted' : describeDifference(first, kind === 'Secret');
      const more = r.differences.length - 1;
      return more > 0 ? `${head}, +${more} more` : head;
    }
  }
}

export function clamp(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
