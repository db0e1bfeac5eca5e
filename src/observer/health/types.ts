// Types the health engine works on: the rule shapes (src/rules/types.ts, below the observer, re-exported
// here), objects as read (src/api's KubeObject), rule results and the health loop's view of an
// inventory entry. The entry is still a stand-in for src/api's InventoryEntry (one shape, pending).

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

export type HealthState = 'Healthy' | 'Progressing' | 'Degraded' | 'Unknown';

/** One ReleaseInventory entry as the health loop sees it. */
export interface InventoryEntry {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly wave: number;
  readonly renderRef?: string;
  /** The resourceVersion the apply of renderRef returned (the controller's; absent for older entries). */
  readonly appliedResourceVersion?: string;
  readonly state?: HealthState;
  readonly message?: string;
  readonly firstUnhealthy?: string;
  readonly assessedRenderRef?: string;
  /** The rule that decided the state, `<ruleSet>/<rule>`. */
  readonly rule?: string;
}

/** API group of an apiVersion: "apps/v1" → "apps", "v1" → "". */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export { inventoryKeyOf as entryKey } from '../../api/keys.ts';
