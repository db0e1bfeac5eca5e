// The seam between fetched files and objects: one Renderer per spec.render.type. Renderers only turn
// files into manifests; checking, namespacing, hooks and canonical order are shared (assemble.ts).
import type { Checked } from './result.ts';
import type { Manifest, RenderType, SourceFile } from './types.ts';

export type RendererOptions = {
  /** spec.render.substitute; undefined means no substitution at all (not even defaults). */
  readonly substitute?: Readonly<Record<string, string>>;
};

export type RenderResult = Checked<readonly Manifest[]>;

export interface Renderer {
  readonly type: RenderType;
  render(files: readonly SourceFile[], options: RendererOptions): RenderResult;
}
