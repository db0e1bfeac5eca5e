// render.type Helm: `helm template` of the chart at the source path. The release name is
// render.helm.releaseName or the Release's name; the namespace targetNamespace or the Release's;
// values are merged as Helm merges -f files: valuesFiles (from the source), then valuesFrom, then
// the inline values. The target's version and API versions (inputs.capabilities) make .Capabilities
// right. The chart's crds/ are part of the render, ahead of every other object; chart hooks become
// convoy hooks (hooks.ts); render.helm.postRenderers run kustomize over the output. Helm reaches no
// cluster and no network here: `lookup` finds nothing; dependencies charts/ lacks are built first
// (dependency-build.ts), as Argo CD and Flux build them.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Problem } from '../errors.ts';
import { kustomizeBuild, toolEnv } from '../kustomize/renderer.ts';
import { OciSource } from '../oci/source.ts';
import type { RendererOptions, RenderResult } from '../renderer.ts';
import { fail } from '../result.ts';
import { runToolFor, type ToolInfo } from '../tools/output.ts';
import { parseLimits, parseToolOutput } from '../tools/parse-off-thread.ts';
import { ToolRenderer, type ToolRendererOptions, toolLimits } from '../tools/tool-renderer.ts';
import { unsafePath, withWorkDir } from '../tools/workdir.ts';
import type { HelmRenderSpec, SourceFile } from '../types.ts';
import { type DependencyFetchers, withDependencies } from './dependency-build.ts';
import { HELM_OUTPUT } from './manifests.ts';
import { POST_RENDER_INPUT, postRenderKustomization } from './post-render.ts';
import { ChartRepoSource } from './repo-source.ts';
import { isSchemaFailure, schemaProblems, type ValuesLayer } from './schema-error.ts';
import { describeRef } from './values.ts';

export type HelmRendererOptions = ToolRendererOptions & {
  readonly binary?: string;
  /** Where missing dependencies are fetched from (default: a ChartRepoSource and an OciSource of its own). */
  readonly dependencies?: DependencyFetchers;
  /** kustomize, for postRenderers. */
  readonly kustomizeBinary?: string;
};

export class HelmRenderer extends ToolRenderer {
  readonly type = 'Helm' as const;
  readonly #helm: ToolInfo;
  readonly #kustomize: ToolInfo;
  readonly #dependencies: DependencyFetchers;

  constructor(opts: HelmRendererOptions = {}) {
    super('helm', opts);
    this.#dependencies = opts.dependencies ?? { chart: new ChartRepoSource(), oci: new OciSource() };
    const limits = toolLimits(opts);
    this.#helm = {
      name: 'helm',
      binary: opts.binary ?? 'helm',
      hint: 'the convoy image has it; elsewhere `npm run testenv:build` builds it (or pass --helm-binary)',
      ...limits,
    };
    this.#kustomize = {
      name: 'kustomize',
      binary: opts.kustomizeBinary ?? 'kustomize',
      hint: 'postRenderers need kustomize: the convoy image has it (or pass --kustomize-binary)',
      ...limits,
    };
  }

  protected renderMiss(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
    if (!files.some((f) => f.path === 'Chart.yaml')) {
      return Promise.resolve(
        fail([{ where: '', message: 'no Chart.yaml at the source path: it must be a chart directory' }]),
      );
    }
    const helm = options.render?.helm ?? {};
    const problems: Problem[] = [];
    const have = new Set(files.map((f) => f.path));
    (helm.valuesFiles ?? []).forEach((path, i) => {
      const bad = unsafePath(path);
      if (bad !== undefined) problems.push({ where: `spec.render.helm.valuesFiles[${i}]`, message: bad });
      else if (!have.has(path)) {
        problems.push({
          where: `spec.render.helm.valuesFiles[${i}]`,
          message: `${path} is not in the chart directory`,
        });
      }
    });
    if (problems.length > 0) return Promise.resolve(fail(problems));
    return this.#withDependencies(files, options, helm);
  }

  async #withDependencies(
    files: readonly SourceFile[],
    options: RendererOptions,
    helm: HelmRenderSpec,
  ): Promise<RenderResult> {
    const all = await withDependencies(files, this.#dependencies, options.dependencyAccess, options.signal);
    if (!all.ok) return all;
    return this.#template(all.value, options, helm);
  }

  async #template(
    files: readonly SourceFile[],
    options: RendererOptions,
    helm: HelmRenderSpec,
  ): Promise<RenderResult> {
    return withWorkDir('helm', files, async (dir) => {
      const chart = join(dir, 'src');
      const env = {
        ...toolEnv(dir, false),
        HELM_CACHE_HOME: join(dir, '.helm', 'cache'),
        HELM_CONFIG_HOME: join(dir, '.helm', 'config'),
        HELM_DATA_HOME: join(dir, '.helm', 'data'),
      };
      const args = [
        'template',
        helm.releaseName ?? options.name ?? 'release',
        chart,
        '--namespace',
        options.render?.targetNamespace ?? options.namespace ?? 'default',
        '--include-crds',
        '--skip-tests',
      ];
      const caps = options.inputs?.capabilities;
      if (caps !== undefined) {
        if (caps.kubeVersion !== '') args.push('--kube-version', caps.kubeVersion);
        for (const v of caps.apiVersions) args.push('--api-versions', v);
      }
      for (const f of helm.valuesFiles ?? []) args.push('--values', join(chart, f));
      const layers = [...(options.inputs?.valuesFrom ?? []), helm.values];
      for (const [i, values] of layers.entries()) {
        if (values === undefined) continue;
        const file = join(dir, `values-${i}.json`);
        await writeFile(file, JSON.stringify(values), { mode: 0o600 });
        args.push('--values', file);
      }
      const out = await runToolFor(
        this.#helm,
        this.run,
        { args, cwd: dir, env, ...(options.signal === undefined ? {} : { signal: options.signal }) },
        chart,
        HELM_OUTPUT,
        '.',
      );
      if (!out.ok) {
        if (!isSchemaFailure(out.stderr)) return fail([out.problem]);
        const problems = schemaProblems(out.stderr, valuesLayers(files, options, helm));
        return fail(problems.length > 0 ? problems : [out.problem]);
      }
      let output = out.stdout;
      const post = helm.postRenderers ?? [];
      for (const [i, pr] of post.entries()) {
        const postDir = join(dir, `post-${i}`);
        await mkdir(postDir, { mode: 0o700 });
        await writeFile(join(postDir, POST_RENDER_INPUT), output, { mode: 0o600 });
        await writeFile(join(postDir, 'kustomization.yaml'), postRenderKustomization(pr.kustomize), {
          mode: 0o600,
        });
        const where = `spec.render.helm.postRenderers[${i}]`;
        const build = { dir, target: postDir, allowNetwork: false, where };
        const kout = await kustomizeBuild(this.#kustomize, this.run, build, options.signal);
        if (!kout.ok) return fail([kout.problem]);
        output = kout.stdout;
      }
      return parseToolOutput(
        { kind: 'helm', postRendered: post.length > 0, vars: options.substitute },
        output,
        parseLimits(this.#helm, HELM_OUTPUT, output.length, options.signal),
      );
    });
  }
}

/** The values helm merged, lowest first, each named by the field that gave it (schema-error.ts). */
function valuesLayers(
  files: readonly SourceFile[],
  options: RendererOptions,
  helm: HelmRenderSpec,
): ValuesLayer[] {
  const layers: ValuesLayer[] = [];
  (helm.valuesFiles ?? []).forEach((path, i) => {
    const file = files.find((f) => f.path === path);
    let values: unknown;
    try {
      values =
        file === undefined ? undefined : parse(new TextDecoder().decode(file.data), { maxAliasCount: 1000 });
    } catch {
      values = undefined; // helm would have said so first
    }
    layers.push({ where: `spec.render.helm.valuesFiles[${i}] (${path})`, values });
  });
  const refs = helm.valuesFrom ?? [];
  (options.inputs?.valuesFrom ?? []).forEach((values, i) => {
    const ref = refs[i];
    if (ref !== undefined) layers.push({ where: describeRef(ref, i, options.namespace ?? ''), values });
  });
  layers.push({ where: 'spec.render.helm.values', values: helm.values });
  return layers;
}
