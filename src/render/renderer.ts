// The seam between fetched files and objects: one Renderer per spec.render.type. Renderers only turn
// files into manifests; checking, namespacing, hooks and canonical order are shared (assemble.ts).
// Plain is pure and synchronous; Kustomize and Helm run a tool and answer with a promise.
import type { SourcePathRef } from './kustomize/outside.ts';
import type { Checked } from './result.ts';
import type { Manifest, RenderInputs, RenderSpec, RenderType, SourceAccess, SourceFile } from './types.ts';

export type RendererOptions = {
  /** spec.render.substitute; undefined means no substitution at all (not even defaults). */
  readonly substitute?: Readonly<Record<string, string>>;
  /** The whole spec.render, for the tool renderers' own settings (render.helm, render.kustomize). */
  readonly render?: RenderSpec;
  /** The Release's namespace: Helm's release namespace when targetNamespace is unset. */
  readonly namespace?: string;
  /** The Release's name: Helm's release name when render.helm.releaseName is unset. */
  readonly name?: string;
  /** What the caller resolved for this render (valuesFrom, the target's capabilities). */
  readonly inputs?: RenderInputs;
  readonly signal?: AbortSignal;
  /** The field that chose the files (spec.source.git.path), for a message about a file outside them. */
  readonly sourcePath?: SourcePathRef;
  /** How the source was fetched: a Helm chart's missing dependencies are fetched with it. */
  readonly dependencyAccess?: SourceAccess;
};

export type RenderResult = Checked<readonly Manifest[]>;

export interface Renderer {
  readonly type: RenderType;
  render(files: readonly SourceFile[], options: RendererOptions): RenderResult | Promise<RenderResult>;
}

/** A renderer that needs no tool and answers at once (Plain). */
export interface SyncRenderer extends Renderer {
  render(files: readonly SourceFile[], options: RendererOptions): RenderResult;
}
