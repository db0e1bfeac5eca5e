// stageRender's core: a fetched source and spec.render in, the canonical render and its renderRef
// out, or a RenderError naming every file or object that is wrong. Two steps, so a tool renderer
// runs once however often the result is assembled (stage-render assembles twice: before and after
// asking discovery about the kinds it found): renderManifests (async, may run helm or kustomize),
// then assembleOutcome (pure). A renderer result from the render cache is the same object on every
// reconcile of an unchanged source, so its assembly is kept beside it (assembled, below): checking,
// sorting and hashing ~10,000 objects again takes seconds of the event loop (docs/design.md#render-cache).
import { assembleRender } from './assemble.ts';
import { renderRef, renderRefYielding } from './canonical.ts';
import { RenderError } from './errors.ts';
import type { SourcePathRef } from './kustomize/outside.ts';
import { PlainRenderer } from './plain.ts';
import type { Renderer, RendererOptions, RenderResult } from './renderer.ts';
import { namespacedOf } from './scope.ts';
import { checkVariables } from './substitute.ts';
import type {
  IsNamespaced,
  Manifest,
  Render,
  RenderInputs,
  RenderSpec,
  RenderType,
  SourceOutput,
  SourceSpec,
} from './types.ts';

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
};

export type RenderSourceOptions = RenderReleaseOptions & {
  /** Renderers by type; Plain is always there (uncached unless a CachedPlainRenderer is given). */
  readonly renderers?: Partial<Record<RenderType, Renderer>>;
  /** The Release's namespace (Helm's namespace when targetNamespace is unset). */
  readonly namespace?: string;
  /** The Release's name (Helm's release name when render.helm.releaseName is unset). */
  readonly name?: string;
  readonly inputs?: RenderInputs;
  readonly signal?: AbortSignal;
  /** What chose the files when no spec.source did (`convoy render DIR`). */
  readonly sourcePath?: SourcePathRef;
};

type Spec = { readonly render?: RenderSpec; readonly source?: SourceSpec };

/** The field that chose the source's files, for messages about a file outside them. */
function sourcePathOf(source: SourceSpec | undefined): SourcePathRef | undefined {
  if (source?.git !== undefined) return { field: 'spec.source.git.path', path: source.git.path };
  if (source?.oci !== undefined) return { field: 'spec.source.oci.path', path: source.oci.path };
  return undefined;
}

function failed(where: string, message: string): RenderResult {
  return { ok: false, problems: [{ where, message }] };
}

function rendererOptions(spec: Spec, extra: Omit<RendererOptions, 'substitute' | 'render'>): RendererOptions {
  const substitute = spec.render?.substitute;
  return {
    ...extra,
    ...(substitute === undefined ? {} : { substitute }),
    ...(spec.render === undefined ? {} : { render: spec.render }),
  };
}

/** The renderer's manifests, before checking and ordering; runs the tool of a tool renderer. */
export async function renderManifests(
  spec: Spec,
  source: SourceOutput,
  options: RenderSourceOptions = {},
): Promise<RenderResult> {
  const type: RenderType = spec.render?.type ?? 'Plain';
  const renderer = type === 'Plain' ? (options.renderers?.Plain ?? PlainRenderer) : options.renderers?.[type];
  if (renderer === undefined) {
    return failed('spec.render.type', `${type} rendering is not enabled in this process`);
  }
  const substitute = spec.render?.substitute;
  if (substitute !== undefined) {
    const vars = checkVariables(substitute);
    if (!vars.ok) return vars;
  }
  const sourcePath = options.sourcePath ?? sourcePathOf(spec.source);
  return renderer.render(
    source.files,
    rendererOptions(spec, {
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(sourcePath === undefined ? {} : { sourcePath }),
      ...(source.access === undefined ? {} : { dependencyAccess: source.access }),
    }),
  );
}

type Assembled = { readonly render: Render; readonly renderRef: string };

/**
 * Successful assemblies of a renderer result, by assemblyKey: the entry lives as long as the result
 * does (the render cache's bound decides). Renders are never modified after assembly, so sharing one is
 * safe.
 */
const assembled = new WeakMap<RenderResult, Map<string, Assembled>>();
/** Assemblies kept per result: a Release asks for two (before and after discovery), often the same. */
const MAX_ASSEMBLIES = 4;

/** What an assembly reads besides the manifests: the target namespace and the scope of each kind in them. */
function assemblyKey(
  manifests: readonly Manifest[],
  targetNamespace: string | undefined,
  isNamespaced: IsNamespaced | undefined,
): string {
  const kinds = new Map<string, readonly [string, string]>();
  for (const { object } of manifests) {
    const { apiVersion, kind } = object;
    if (typeof apiVersion === 'string' && typeof kind === 'string')
      kinds.set(`${apiVersion}\0${kind}`, [apiVersion, kind]);
  }
  const scope = [...kinds.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, [apiVersion, kind]]) => `${k}\0${namespacedOf(isNamespaced, apiVersion, kind) ? 1 : 0}`);
  return JSON.stringify([targetNamespace ?? null, scope]);
}

type Assembly =
  | { readonly done: RenderOutcome }
  | {
      readonly render: Render;
      readonly keep: (renderRef: string) => RenderOutcome;
    };

/** Assembly up to the renderRef: a kept assembly, a failure, or the render and how to keep its ref. */
function assemble(
  spec: Spec,
  revision: string,
  manifests: RenderResult,
  options: RenderReleaseOptions,
): Assembly {
  if (!manifests.ok) return { done: { ok: false, error: new RenderError(manifests.problems) } };
  const targetNamespace = spec.render?.targetNamespace ?? options.releaseNamespace;
  const value = manifests.value as readonly Manifest[];
  const key = assemblyKey(value, targetNamespace, options.isNamespaced);
  const kept = assembled.get(manifests)?.get(key);
  if (kept !== undefined) return { done: { ok: true, revision, ...kept } };
  const render = assembleRender(value, {
    ...(targetNamespace === undefined ? {} : { targetNamespace }),
    ...(options.isNamespaced === undefined ? {} : { isNamespaced: options.isNamespaced }),
  });
  if (!render.ok) return { done: { ok: false, error: new RenderError(render.problems) } };
  return {
    render: render.value,
    keep: (ref) => {
      const out: Assembled = { render: render.value, renderRef: ref };
      const byKey = assembled.get(manifests) ?? new Map<string, Assembled>();
      if (byKey.size >= MAX_ASSEMBLIES) byKey.clear();
      byKey.set(key, out);
      assembled.set(manifests, byKey);
      return { ok: true, revision, ...out };
    },
  };
}

/** The checked, namespaced, canonical render of a renderer's manifests and its renderRef. */
export function assembleOutcome(
  spec: Spec,
  revision: string,
  manifests: RenderResult,
  options: RenderReleaseOptions = {},
): RenderOutcome {
  const a = assemble(spec, revision, manifests, options);
  return 'done' in a ? a.done : a.keep(renderRef(a.render));
}

/**
 * assembleOutcome for the controller: the renderRef is hashed an object at a time with the event
 * loop let run in between, so a large render does not hold up the process's other work.
 */
export async function assembleOutcomeYielding(
  spec: Spec,
  revision: string,
  manifests: RenderResult,
  options: RenderReleaseOptions = {},
): Promise<RenderOutcome> {
  const a = assemble(spec, revision, manifests, options);
  return 'done' in a ? a.done : a.keep(await renderRefYielding(a.render));
}

/** Any render type, tools included. */
export async function renderSource(
  spec: Spec,
  source: SourceOutput,
  options: RenderSourceOptions = {},
): Promise<RenderOutcome> {
  return assembleOutcomeYielding(
    spec,
    source.revision,
    await renderManifests(spec, source, options),
    options,
  );
}

/** The Plain renderer's render, synchronously (no tool): tests, examples and the pure paths. */
export function renderRelease(
  spec: Spec,
  source: SourceOutput,
  options: RenderReleaseOptions = {},
): RenderOutcome {
  const type: RenderType = spec.render?.type ?? 'Plain';
  if (type !== 'Plain') {
    return assembleOutcome(spec, source.revision, failed('spec.render.type', `${type} needs renderSource`));
  }
  const substitute = spec.render?.substitute;
  if (substitute !== undefined) {
    const vars = checkVariables(substitute);
    if (!vars.ok) return assembleOutcome(spec, source.revision, vars);
  }
  const manifests = PlainRenderer.render(source.files, rendererOptions(spec, {}));
  return assembleOutcome(spec, source.revision, manifests, options);
}
