// The renderers a process offers, each tool with its binary, all behind one render cache (one bound in
// bytes for the process, docs/design.md#render-cache): what the controller and the CLI plug into
// renderManifests. The controller passes its cache, to forget a deleted Release's renders.
import { RenderCache } from '../cache.ts';
import { HelmRenderer } from '../helm/renderer.ts';
import { KustomizeRenderer } from '../kustomize/renderer.ts';
import { CachedPlainRenderer } from '../plain.ts';
import type { Renderer } from '../renderer.ts';
import type { RenderType } from '../types.ts';

export type ToolBinaries = {
  readonly kustomize?: string;
  readonly helm?: string;
};

export function toolRenderers(
  binaries: ToolBinaries = {},
  cache: RenderCache = new RenderCache(),
): Partial<Record<RenderType, Renderer>> {
  return {
    Plain: new CachedPlainRenderer(cache),
    Kustomize: new KustomizeRenderer({
      cache,
      ...(binaries.kustomize === undefined ? {} : { binary: binaries.kustomize }),
    }),
    Helm: new HelmRenderer({
      cache,
      ...(binaries.helm === undefined ? {} : { binary: binaries.helm }),
      ...(binaries.kustomize === undefined ? {} : { kustomizeBinary: binaries.kustomize }),
    }),
  };
}
