// Structural types the health engine works on. Local stand-ins for the API types in src/api
// (HealthRuleSet / GlobalHealthRuleSet / ReleaseInventory); the lead reconciles them later.

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

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

/** Any Kubernetes object as read from the API (JSON). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

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
  readonly state?: HealthState;
  readonly message?: string;
  readonly firstUnhealthy?: string;
  readonly assessedRenderRef?: string;
  /** The rule that decided the state, `<ruleSet>/<rule>`. */
  readonly rule?: string;
}

export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}

/** API group of an apiVersion: "apps/v1" → "apps", "v1" → "". */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function entryKey(e: Pick<InventoryEntry, 'group' | 'kind' | 'namespace' | 'name'>): string {
  return `${e.group}/${e.kind}/${e.namespace ?? ''}/${e.name}`;
}
