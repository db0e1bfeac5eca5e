// Label selector matching with metav1.LabelSelector semantics, the one definition: the observer's rule
// match.selector, and the Release selection of Alerts and Receivers (names and labels). Structural types,
// so it depends on nothing.

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly SelectorRequirement[];
}

/** Why a selector is invalid, or undefined when it is valid (same checks as the API server). */
export function selectorProblem(sel: LabelSelector | undefined): string | undefined {
  for (const req of sel?.matchExpressions ?? []) {
    const n = req.values?.length ?? 0;
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (n === 0) return `matchExpressions key ${req.key}: operator ${req.operator} needs values`;
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (n > 0) return `matchExpressions key ${req.key}: operator ${req.operator} takes no values`;
        break;
      default:
        return `matchExpressions key ${req.key}: unknown operator ${JSON.stringify(req.operator)}`;
    }
  }
  return undefined;
}

/** An absent or empty selector matches everything. Assumes selectorProblem() returned undefined. */
export function selectorMatches(
  sel: LabelSelector | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (sel === undefined) return true;
  const l = labels ?? {};
  const has = (k: string) => Object.hasOwn(l, k);
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    if (!has(k) || l[k] !== v) return false;
  }
  for (const req of sel.matchExpressions ?? []) {
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has(req.key) || !values.includes(l[req.key] as string)) return false;
        break;
      case 'NotIn':
        // As in Kubernetes: an object without the label matches NotIn.
        if (has(req.key) && values.includes(l[req.key] as string)) return false;
        break;
      case 'Exists':
        if (!has(req.key)) return false;
        break;
      case 'DoesNotExist':
        if (has(req.key)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A selection of objects by name and labels: both given, both must match; none given, everything. */
export interface NameLabelSelection {
  readonly names?: readonly string[];
  readonly selector?: LabelSelector;
}

export function selectionMatches(
  sel: NameLabelSelection | undefined,
  name: string | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (sel === undefined) return true;
  if (sel.names !== undefined && !sel.names.includes(name ?? '')) return false;
  return selectorMatches(sel.selector, labels);
}
