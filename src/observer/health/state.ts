// health.DeriveState: one inventory entry's state from its rule result and firstUnhealthy anchor
// (docs/design.md#entry-state). The anchor survives restarts because it lives in the inventory.

import { formatTime } from '../../api/time.ts';
import { assertNever } from '../../lib/assert-never.ts';
import type { HealthState, RuleResult } from './types.ts';

/** What assessItem found for an entry: the object and its rule result, or no object at all. */
export type Observation =
  | { readonly kind: 'found'; readonly result: RuleResult }
  | { readonly kind: 'notFound' };

export interface DeriveInput {
  readonly observation: Observation;
  /** The entry's stored anchor (RFC 3339), read before this pass writes. */
  readonly firstUnhealthy: string | undefined;
  /** healthAssessment.deadline in ms; undefined: never Degraded. */
  readonly deadlineMs: number | undefined;
  readonly now: Date;
}

export interface DerivedState {
  readonly state: HealthState;
  readonly firstUnhealthy: string | undefined;
  readonly message: string;
  /** The rule that decided, when one did (ids of `<ruleSet>/<rule>`). */
  readonly rule?: string;
}

/**
 * Explanations: every message names the rule that decided. A pass by generic rules only says so,
 * because their verdict rests on status conventions, not on what the kind's project documents.
 */
function passMessage(rules: readonly string[], fallback: boolean): string {
  const list = `rule${rules.length === 1 ? '' : 's'} ${rules.join(', ')}`;
  return fallback ? `no rule for this kind; passes the generic status checks (${list})` : `healthy (${list})`;
}

export function deriveState(input: DeriveInput): DerivedState {
  const { observation: obs, firstUnhealthy, deadlineMs, now } = input;
  const failure = (message: string, rule?: string): DerivedState => {
    const anchorMs = firstUnhealthy === undefined ? Number.NaN : Date.parse(firstUnhealthy);
    // An unreadable anchor is replaced: the clock restarts rather than failing the pass.
    const anchor = Number.isNaN(anchorMs) ? formatTime(now) : (firstUnhealthy as string);
    const since = Number.isNaN(anchorMs) ? 0 : now.getTime() - anchorMs;
    const degraded = deadlineMs !== undefined && since >= deadlineMs;
    return {
      state: degraded ? 'Degraded' : 'Progressing',
      firstUnhealthy: anchor,
      message,
      ...(rule !== undefined ? { rule } : {}),
    };
  };
  if (obs.kind === 'notFound') return failure('not found');
  const r = obs.result;
  switch (r.kind) {
    case 'pass':
      return {
        state: 'Healthy',
        firstUnhealthy: undefined,
        message: passMessage(r.rules, r.fallback === true),
        ...(r.rules.length > 0 ? { rule: r.rules.join(',') } : {}),
      };
    case 'noRule':
      return {
        state: 'Healthy',
        firstUnhealthy: undefined,
        message: 'no health rule matches: healthy once it exists',
      };
    case 'fail':
      return failure(`${r.message} (rule ${r.rule})`, r.rule);
    case 'error':
      return { state: 'Unknown', firstUnhealthy, message: r.message, rule: r.rule };
    default:
      return assertNever(r);
  }
}
