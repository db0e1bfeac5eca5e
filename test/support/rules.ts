// HealthRuleSets for e2e tests: a set of rules in a namespace, labelled so that a Release selects it with
// `{ matchLabels: { rules: <name> } }`, applied under the tests' field manager.
import { API_VERSION } from '../../src/api/constants.ts';
import type { HealthRule } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';

export function applyRuleSet(
  client: KubeClient,
  namespace: string,
  name: string,
  rules: readonly Partial<HealthRule>[],
  opts: { readonly force?: boolean } = {},
) {
  return applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'HealthRuleSet',
      metadata: { name, namespace, labels: { rules: name } },
      spec: { rules },
    },
    { fieldManager: 'convoy-test', ...(opts.force === undefined ? {} : { force: opts.force }) },
  );
}
