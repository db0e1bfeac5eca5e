// What the renderers that run a tool (Kustomize, Helm) share: their options beside the binaries, the
// limits of a run, and a render that goes through the render cache before it runs anything.
import { RenderCache, renderKey, renderOwner } from '../cache.ts';
import type { Renderer, RendererOptions, RenderResult } from '../renderer.ts';
import type { RenderType, SourceFile } from '../types.ts';
import type { ToolInfo } from './output.ts';
import { runTool, type ToolRunner } from './run.ts';

/** What a renderer that runs a tool takes beside its binaries: a runner (tests), limits, a cache to share. */
export type ToolRendererOptions = {
  readonly runner?: ToolRunner;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly cache?: RenderCache;
};

/** A tool run's limits: a minute and 64 MiB of output, unless the options say otherwise. */
export function toolLimits(opts: ToolRendererOptions): Pick<ToolInfo, 'timeoutMs' | 'maxStdoutBytes'> {
  return { timeoutMs: opts.timeoutMs ?? 60_000, maxStdoutBytes: opts.maxOutputBytes ?? 64 * 1024 * 1024 };
}

/** A Renderer whose renders are cached under `keyTool`; a subclass says how to render on a miss. */
export abstract class ToolRenderer implements Renderer {
  abstract readonly type: RenderType;
  readonly cache: RenderCache;
  protected readonly run: ToolRunner;
  readonly #keyTool: string;

  constructor(keyTool: string, opts: ToolRendererOptions) {
    this.#keyTool = keyTool;
    this.run = opts.runner ?? runTool;
    this.cache = opts.cache ?? new RenderCache();
  }

  render(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
    // A hit skips the checks too: they depend only on what the key covers.
    return this.cache.getOrRender(
      renderKey(this.#keyTool, files, options),
      () => this.renderMiss(files, options),
      renderOwner(options),
    );
  }

  /** Checks the files and runs the tool: what a cache miss does. */
  protected abstract renderMiss(
    files: readonly SourceFile[],
    options: RendererOptions,
  ): Promise<RenderResult>;
}
