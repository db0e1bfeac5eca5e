// The shapes of health rules and rule sets as the rule library, its YAML reader and the health engine
// read them: a rule is src/api's HealthRule; a rule set is structural, so both the API's HealthRuleSet /
// GlobalHealthRuleSet and a rule set parsed from a file fit. Here, below the observer, so the shipped
// rules (src/rules) need nothing from above.

import type { HealthRule } from '../api/types.ts';

/** A rule and its match: src/api's one definition (the HealthRuleSet schema). */
export type { HealthRule } from '../api/types.ts';
// The selector of a rule's match is the one LabelSelector shape (src/lib/selector.ts).
export type { LabelSelector, SelectorRequirement as LabelSelectorRequirement } from '../lib/selector.ts';
export type HealthRuleMatch = HealthRule['match'];

export interface HealthRuleSetLike {
  readonly kind?: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec: { readonly rules: readonly HealthRule[] };
}
