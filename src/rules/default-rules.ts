// The default GlobalHealthRuleSet shipped with convoy (default-rules.yaml, label
// convoy.kumodo.io/rules: default), loaded as data.
import { readFileSync } from 'node:fs';
import { parseRuleSets } from './ruleset-yaml.ts';
import type { HealthRuleSetLike } from './types.ts';

export const defaultRulesPath = new URL('./default-rules.yaml', import.meta.url);

export function defaultRulesYaml(): string {
  return readFileSync(defaultRulesPath, 'utf8');
}

export function defaultRuleSet(): HealthRuleSetLike {
  const parsed = parseRuleSets(defaultRulesYaml(), 'default-rules.yaml');
  if (!parsed.ok) throw new Error(parsed.message);
  const [rs] = parsed.ruleSets;
  if (rs === undefined || parsed.ruleSets.length !== 1)
    throw new Error('default-rules.yaml must hold one rule set');
  return rs;
}
