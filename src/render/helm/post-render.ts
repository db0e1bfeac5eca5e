// render.helm.postRenderers[].kustomize as a kustomization over Helm's output (Flux's postRenderers):
// the output is its one resource, the patches and image overrides apply to it. Pure.
import { stringify } from 'yaml';
import type { KustomizePatches } from '../types.ts';

export const POST_RENDER_INPUT = 'helm-output.yaml';

export function postRenderKustomization(k: KustomizePatches): string {
  return stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [POST_RENDER_INPUT],
    ...(k.patches === undefined || k.patches.length === 0 ? {} : { patches: k.patches }),
    ...(k.images === undefined || k.images.length === 0 ? {} : { images: k.images }),
  });
}
