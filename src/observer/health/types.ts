// Types the health engine works on: the rule shapes (src/rules/types.ts, below the observer, re-exported
// here), objects as read (src/api's KubeObject) and rule results. An inventory entry is src/api's
// InventoryEntry, its state src/api's EntryState.

/** Any Kubernetes object as read from the API (JSON): src/api's one definition. */
export type { KubeObject } from '../../api/types.ts';
export type {
  HealthRule,
  HealthRuleMatch,
  HealthRuleSetLike,
  LabelSelector,
  LabelSelectorRequirement,
} from '../../rules/types.ts';

/** Outcome of every matching rule for one object. `rule` ids are `<ruleSet>/<rule>`. */
export type RuleResult =
  | {
      readonly kind: 'pass';
      readonly rules: readonly string[];
      /** Only fallback (generic) rules matched: no rule was written for this kind. */
      readonly fallback?: boolean;
    }
  | { readonly kind: 'fail'; readonly rule: string; readonly message: string }
  | { readonly kind: 'error'; readonly rule: string; readonly message: string }
  | { readonly kind: 'noRule' };

/** An inventory entry's health state: src/api's one definition. */
export type { EntryState as HealthState } from '../../api/types.ts';

/** API group of an apiVersion: "apps/v1" → "apps", "v1" → "". */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export { inventoryKeyOf as entryKey } from '../../api/keys.ts';
