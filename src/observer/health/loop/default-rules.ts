// installDefaultRules: applies convoy's default GlobalHealthRuleSet (src/rules/default-rules.yaml) with
// Server-Side Apply. Deploy manifests and `convoy dev` install it; tests call this.
import { parse } from 'yaml';
import type { GlobalHealthRuleSet } from '../../../api/types.ts';
import { applyObject } from '../../../kube/apply.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { defaultRulesYaml } from '../../../rules/default-rules.ts';

export const INSTALL_FIELD_MANAGER = 'convoy-install';

export async function installDefaultRules(client: KubeClient): Promise<GlobalHealthRuleSet> {
  const obj = parse(defaultRulesYaml()) as GlobalHealthRuleSet;
  return applyObject(client, obj, { fieldManager: INSTALL_FIELD_MANAGER, force: true });
}
