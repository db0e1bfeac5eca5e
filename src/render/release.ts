// stageRender's pure core: a fetched source and spec.render in, the canonical render and its
// renderRef out, or a RenderError naming every file or object that is wrong.
import { assembleRender } from './assemble.ts';
import { renderRef } from './canonical.ts';
import { RenderError } from './errors.ts';
import { PlainRenderer } from './plain.ts';
import type { Renderer } from './renderer.ts';
import { checkVariables } from './substitute.ts';
import type { IsNamespaced, Render, RenderSpec, RenderType, SourceOutput } from './types.ts';

export type RenderOutcome =
  | { readonly ok: true; readonly revision: string; readonly render: Render; readonly renderRef: string }
  | { readonly ok: false; readonly error: RenderError };

export type RenderReleaseOptions = {
  /** Discovery's answer for a kind's scope; see scope.ts for kinds it does not know. */
  readonly isNamespaced?: IsNamespaced;
  /**
   * The Release's namespace: render.targetNamespace's default, as documented (like Argo CD's destination
   * namespace), so a namespaced object that names none lands beside its Release.
   */
  readonly releaseNamespace?: string;
  /** Renderers by type; Plain is always there. Kustomize and Helm plug in here later. */
  readonly renderers?: Partial<Record<RenderType, Renderer>>;
};

export function renderRelease(
  spec: { readonly render?: RenderSpec },
  source: SourceOutput,
  options: RenderReleaseOptions = {},
): RenderOutcome {
  const failed = (where: string, message: string): RenderOutcome => ({
    ok: false,
    error: new RenderError([{ where, message }]),
  });
  const type: RenderType = spec.render?.type ?? 'Plain';
  const renderer = type === 'Plain' ? PlainRenderer : options.renderers?.[type];
  if (renderer === undefined) return failed('spec.render.type', `${type} is not supported yet`);
  const substitute = spec.render?.substitute;
  if (substitute !== undefined) {
    const vars = checkVariables(substitute);
    if (!vars.ok) return { ok: false, error: new RenderError(vars.problems) };
  }
  const manifests = renderer.render(source.files, substitute === undefined ? {} : { substitute });
  if (!manifests.ok) return { ok: false, error: new RenderError(manifests.problems) };
  const targetNamespace = spec.render?.targetNamespace ?? options.releaseNamespace;
  const render = assembleRender(manifests.value, {
    ...(targetNamespace === undefined ? {} : { targetNamespace }),
    ...(options.isNamespaced === undefined ? {} : { isNamespaced: options.isNamespaced }),
  });
  if (!render.ok) return { ok: false, error: new RenderError(render.problems) };
  return { ok: true, revision: source.revision, render: render.value, renderRef: renderRef(render.value) };
}
