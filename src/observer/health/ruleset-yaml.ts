// Pending: the rule-set reader moved to src/rules/ruleset-yaml.ts (below the observer, so the shipped
// rules need nothing from above). src/cli/rules-eval.ts still imports it from here; point that import at
// src/rules/ruleset-yaml.ts and delete this file.
export { parseRuleSets, parseYamlObjects, type YamlPosition } from '../../rules/ruleset-yaml.ts';
