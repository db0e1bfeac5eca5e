// collectRules: the rule sets a Release selects, from the informer caches. A missing selector selects
// nothing; an empty one ({}) selects all. Global sets first, then local ones, each sorted by name so
// rule order (and the rule that decides a failure) is stable between passes and replicas.
import type { GlobalHealthRuleSet, HealthRuleSet, LabelSelector, Release } from '../../../api/types.ts';
import { nameOf } from '../../../lib/names.ts';
import { selectorMatches } from '../selector.ts';
import type { HealthRuleSetLike } from '../types.ts';

const byName = (a: { metadata: { name?: string } }, b: { metadata: { name?: string } }) =>
  nameOf(a).localeCompare(nameOf(b));

function select<T extends { metadata: { labels?: Record<string, string> } }>(
  sets: readonly T[],
  selector: LabelSelector | undefined,
): T[] {
  if (selector === undefined) return [];
  return sets.filter((s) => selectorMatches(selector, s.metadata.labels));
}

export function collectRules(
  release: Release,
  globals: readonly GlobalHealthRuleSet[],
  locals: readonly HealthRuleSet[],
): HealthRuleSetLike[] {
  const ha = release.spec.healthAssessment;
  const ns = release.metadata.namespace;
  const g = select(globals, ha?.globalRuleSetSelector).sort(byName);
  const l = select(
    locals.filter((s) => s.metadata.namespace === ns),
    ha?.localRuleSetSelector,
  ).sort(byName);
  return [...g, ...l].map((s) => ({
    kind: s.kind,
    metadata: {
      name: nameOf(s),
      ...(s.kind === 'HealthRuleSet' && s.metadata.namespace ? { namespace: s.metadata.namespace } : {}),
    },
    spec: { rules: (s.spec?.rules ?? []) as HealthRuleSetLike['spec']['rules'] },
  }));
}
