// The Kustomize renderer: `kustomize build` of the source path in a work directory, remote bases
// refused unless render.kustomize.allowRemoteResources, and the build helm post-renderers share.
import type { RendererOptions, RenderResult } from '../renderer.ts';
import { fail } from '../result.ts';
import { type RunResult, runToolFor, type ToolInfo } from '../tools/output.ts';
import { parseLimits, parseToolOutput } from '../tools/parse-off-thread.ts';
import type { ToolRunner } from '../tools/run.ts';
import { ToolRenderer, type ToolRendererOptions, toolLimits } from '../tools/tool-renderer.ts';
import { withWorkDir } from '../tools/workdir.ts';
import type { SourceFile } from '../types.ts';
import { outsideMessage, outsideReference } from './outside.ts';
import { isKustomizationFile, remoteEntries } from './remote.ts';

export type KustomizeRendererOptions = ToolRendererOptions & {
  /** The kustomize binary; default "kustomize" from PATH. */
  readonly binary?: string;
};

/** The name kustomize's output has in error messages. */
export const KUSTOMIZE_OUTPUT = 'kustomize build';

export class KustomizeRenderer extends ToolRenderer {
  readonly type = 'Kustomize' as const;
  readonly #tool: ToolInfo;

  constructor(opts: KustomizeRendererOptions = {}) {
    super('kustomize', opts);
    this.#tool = {
      name: 'kustomize',
      binary: opts.binary ?? 'kustomize',
      hint: 'the convoy image has it; elsewhere `npm run testenv:build` builds it (or pass --kustomize-binary)',
      ...toolLimits(opts),
    };
  }

  protected renderMiss(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
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
    return withWorkDir('kustomize', files, async (dir) => {
      const build = { dir, target: `${dir}/src`, allowNetwork: allowRemote, where: KUSTOMIZE_OUTPUT };
      const out = await kustomizeBuild(this.#tool, this.run, build, options.signal);
      if (!out.ok) {
        const ref = outsideReference(out.stderr, build.target);
        return fail([
          ref === undefined
            ? out.problem
            : { ...out.problem, message: outsideMessage(ref, options.sourcePath) },
        ]);
      }
      return parseToolOutput(
        { kind: 'yaml', file: KUSTOMIZE_OUTPUT, vars: options.substitute },
        out.stdout,
        parseLimits(this.#tool, KUSTOMIZE_OUTPUT, out.stdout.length, options.signal),
      );
    });
  }
}

/**
 * `kustomize build` of `target` (a directory in the work directory `dir`), confined to the target's
 * tree and run in toolEnv; a failure is located at `where`. The Kustomize renderer's build and each
 * Helm post-renderer's.
 */
export function kustomizeBuild(
  tool: ToolInfo,
  run: ToolRunner,
  build: {
    readonly dir: string;
    readonly target: string;
    readonly allowNetwork: boolean;
    readonly where: string;
  },
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  const { dir, target } = build;
  return runToolFor(
    tool,
    run,
    {
      args: ['build', target, '--load-restrictor', 'LoadRestrictionsRootOnly'],
      cwd: dir,
      env: toolEnv(dir, build.allowNetwork),
      ...(signal === undefined ? {} : { signal }),
    },
    target,
    build.where,
    '.',
  );
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
