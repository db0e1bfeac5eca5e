// The tool renderers a process offers, each with its binary: what the controller and the CLI plug
// into renderManifests.
import { HelmRenderer } from '../helm/renderer.ts';
import { KustomizeRenderer } from '../kustomize/renderer.ts';
import type { Renderer } from '../renderer.ts';
import type { RenderType } from '../types.ts';

export type ToolBinaries = {
  readonly kustomize?: string;
  readonly helm?: string;
};

export function toolRenderers(binaries: ToolBinaries = {}): Partial<Record<RenderType, Renderer>> {
  return {
    Kustomize: new KustomizeRenderer(binaries.kustomize === undefined ? {} : { binary: binaries.kustomize }),
    Helm: new HelmRenderer({
      ...(binaries.helm === undefined ? {} : { binary: binaries.helm }),
      ...(binaries.kustomize === undefined ? {} : { kustomizeBinary: binaries.kustomize }),
    }),
  };
}
