// Argo Rollouts' AnalysisTemplate CRD for the verification e2e files: what convoy reads
// (argoproj.io/v1alpha1, kind AnalysisTemplate) without Argo Rollouts itself.
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { waitFor } from './wait.ts';

/** argoproj.io/v1alpha1 AnalysisTemplate as a bare CRD: any object is kept as it is. */
const analysisTemplateCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'analysistemplates.argoproj.io' },
  spec: {
    group: 'argoproj.io',
    scope: 'Namespaced',
    names: {
      kind: 'AnalysisTemplate',
      plural: 'analysistemplates',
      singular: 'analysistemplate',
      listKind: 'AnalysisTemplateList',
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

/** Installs the CRD and waits until AnalysisTemplates can be listed. */
export async function installAnalysisTemplateCrd(client: KubeClient): Promise<void> {
  await applyObject(client, analysisTemplateCrd, { fieldManager: 'convoy-test', force: true });
  await waitFor(
    'AnalysisTemplate listable',
    async () => {
      await client.list({ apiVersion: 'argoproj.io/v1alpha1', kind: 'AnalysisTemplate' });
      return true;
    },
    { timeoutMs: 60_000 },
  );
}
