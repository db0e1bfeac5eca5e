// render.type Kustomize: `kustomize build` of the source path, with kustomize's safe defaults kept
// and made explicit: files only from inside the source (load restrictor RootOnly), no exec or
// container plugins (alpha plugins off), no helm inflation, and nothing fetched from the network
// unless spec.render.kustomize.allowRemoteResources (then bounded by the same time limit).

import { RenderCache, renderKey } from '../cache.ts';
import type { Renderer, RendererOptions, RenderResult } from '../renderer.ts';
import { fail } from '../result.ts';
import { outputManifests, runToolFor, type ToolInfo } from '../tools/output.ts';
import { runTool, type ToolRunner } from '../tools/run.ts';
import { withWorkDir } from '../tools/workdir.ts';
import type { SourceFile } from '../types.ts';
import { isKustomizationFile, remoteEntries } from './remote.ts';

export type KustomizeRendererOptions = {
  /** The kustomize binary; default "kustomize" from PATH. */
  readonly binary?: string;
  readonly runner?: ToolRunner;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly cache?: RenderCache;
};

/** The name kustomize's output has in error messages. */
export const KUSTOMIZE_OUTPUT = 'kustomize build';

export class KustomizeRenderer implements Renderer {
  readonly type = 'Kustomize' as const;
  readonly cache: RenderCache;
  readonly #tool: ToolInfo;
  readonly #run: ToolRunner;

  constructor(opts: KustomizeRendererOptions = {}) {
    this.#tool = {
      name: 'kustomize',
      binary: opts.binary ?? 'kustomize',
      hint: 'the convoy image has it; elsewhere `npm run testenv:build` builds it (or pass --kustomize-binary)',
      timeoutMs: opts.timeoutMs ?? 60_000,
      maxStdoutBytes: opts.maxOutputBytes ?? 64 * 1024 * 1024,
    };
    this.#run = opts.runner ?? runTool;
    this.cache = opts.cache ?? new RenderCache();
  }

  render(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
    // A hit skips the checks too: they depend only on what the key covers.
    return this.cache.getOrRender(renderKey('kustomize', files, options), () =>
      this.#checkAndBuild(files, options),
    );
  }

  #checkAndBuild(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
    const root = files.filter((f) => isKustomizationFile(f.path) && !f.path.includes('/'));
    if (root.length === 0) {
      return Promise.resolve(
        fail([
          {
            where: '',
            message: 'no kustomization.yaml (or kustomization.yml, Kustomization) at the source path',
          },
        ]),
      );
    }
    const allowRemote = options.render?.kustomize?.allowRemoteResources === true;
    if (!allowRemote) {
      const remote = remoteEntries(files);
      if (remote.length > 0) return Promise.resolve(fail(remote));
    }
    return this.#build(files, options, allowRemote);
  }

  async #build(
    files: readonly SourceFile[],
    options: RendererOptions,
    allowRemote: boolean,
  ): Promise<RenderResult> {
    return withWorkDir('kustomize', files, async (dir) => {
      const src = `${dir}/src`;
      const out = await runToolFor(
        this.#tool,
        this.#run,
        {
          args: ['build', src, '--load-restrictor', 'LoadRestrictionsRootOnly'],
          cwd: dir,
          env: toolEnv(dir, allowRemote),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
        src,
        KUSTOMIZE_OUTPUT,
        '.',
      );
      if (!out.ok) return fail([out.problem]);
      return outputManifests(out.stdout, KUSTOMIZE_OUTPUT, options.substitute);
    });
  }
}

/**
 * A clean environment: HOME in the work directory (no user configuration), and without remote
 * resources allowed no git on PATH and every http(s) request sent to a closed loopback port, so a
 * fetch the scan missed fails instead of leaving the machine.
 */
export function toolEnv(dir: string, allowNetwork: boolean): Record<string, string> {
  const env: Record<string, string> = { HOME: dir, TMPDIR: dir, XDG_CONFIG_HOME: `${dir}/.config` };
  if (allowNetwork) {
    env.PATH = process.env.PATH ?? '/usr/bin:/bin';
    for (const k of ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy']) {
      const v = process.env[k];
      if (v !== undefined) env[k] = v;
    }
    env.GIT_TERMINAL_PROMPT = '0';
  } else {
    env.PATH = '/nonexistent';
    env.HTTPS_PROXY = 'http://127.0.0.1:9';
    env.HTTP_PROXY = 'http://127.0.0.1:9';
    env.NO_PROXY = '';
  }
  return env;
}
