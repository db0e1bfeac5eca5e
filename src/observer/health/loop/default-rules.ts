// installDefaultRules / installRuleLibrary: apply convoy's default GlobalHealthRuleSet
// (src/rules/default-rules.yaml) and its rule library (src/rules/library/) with Server-Side Apply. Deploy manifests and `convoy dev` install it; tests call this.
import { parse } from 'yaml';
import type { GlobalHealthRuleSet } from '../../../api/types.ts';
import { applyObject } from '../../../kube/apply.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { defaultRulesYaml } from '../../../rules/default-rules.ts';
import { libraryFiles } from '../../../rules/library.ts';

export const INSTALL_FIELD_MANAGER = 'convoy-install';

export async function installDefaultRules(client: KubeClient): Promise<GlobalHealthRuleSet> {
  const obj = parse(defaultRulesYaml()) as GlobalHealthRuleSet;
  return applyObject(client, obj, { fieldManager: INSTALL_FIELD_MANAGER, force: true });
}

/** The rule library (src/rules/library/*.yaml): one GlobalHealthRuleSet per API group. */
export async function installRuleLibrary(client: KubeClient): Promise<GlobalHealthRuleSet[]> {
  const out: GlobalHealthRuleSet[] = [];
  for (const { text } of libraryFiles()) {
    const obj = parse(text) as GlobalHealthRuleSet;
    out.push(await applyObject(client, obj, { fieldManager: INSTALL_FIELD_MANAGER, force: true }));
  }
  return out;
}
