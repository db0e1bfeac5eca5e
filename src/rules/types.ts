// The shapes of health rules and rule sets as the rule library, its YAML reader and the health engine
// read them: structural, so both the API's HealthRuleSet / GlobalHealthRuleSet and a rule set parsed from
// a file fit. Here, below the observer, so the shipped rules (src/rules) need nothing from above.

import type { LabelSelector } from '../lib/selector.ts';

// The selector of a rule's match is the one LabelSelector shape (src/lib/selector.ts).
export type { LabelSelector, SelectorRequirement as LabelSelectorRequirement } from '../lib/selector.ts';

export interface HealthRuleMatch {
  /** API group; absent, "" (or "core") for the core group, "*" for any group. */
  readonly group?: string;
  /** Kinds, case-sensitive; "*" matches any kind. */
  readonly kinds: readonly string[];
  readonly selector?: LabelSelector;
}

export interface HealthRule {
  readonly name: string;
  readonly match: HealthRuleMatch;
  /** Judges an object only when no non-fallback rule matches it (a generic rule, say). */
  readonly fallback?: boolean;
  /** CEL, must evaluate to bool. */
  readonly healthy: string;
  /** CEL, must evaluate to string; evaluated only when `healthy` is false. */
  readonly message?: string;
}

export interface HealthRuleSetLike {
  readonly kind?: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec: { readonly rules: readonly HealthRule[] };
}
