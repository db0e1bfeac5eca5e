// The Plain renderer: every YAML and JSON file under the source path, in path order, with
// ${NAME} substitution made on each file's text before it is parsed. CachedPlainRenderer keeps its
// results in the render cache, as the tool renderers do (docs/design.md#render-cache), and parses a
// render of 256 KiB or more in the parse child, as a tool's output (docs/design.md#large-renders).
import { RenderCache, renderKey, renderOwner } from './cache.ts';
import type { ManifestFormat } from './parse.ts';
import { type PlainFile, plainManifests } from './plain-parse.ts';
import type { Renderer, RendererOptions, RenderResult, SyncRenderer } from './renderer.ts';
import { fail } from './result.ts';
import { parseHeapMb, parseToolOutput } from './tools/parse-off-thread.ts';
import type { SourceFile } from './types.ts';

/** The format of a manifest file, or undefined for a file Plain does not read. */
export function manifestFormat(path: string): ManifestFormat | undefined {
  // Dotfiles and dot-directories (.git, .github, .helmignore) are never manifests.
  if (path.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const lower = path.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.json')) return 'json';
  return undefined;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The files Plain reads, in path order. */
function plainFiles(files: readonly SourceFile[]): PlainFile[] {
  const out: PlainFile[] = [];
  for (const f of files) {
    const format = manifestFormat(f.path);
    if (format !== undefined) out.push({ path: f.path, format, data: f.data });
  }
  return out.sort((a, b) => compareStrings(a.path, b.path));
}

const noManifests = () =>
  fail([{ where: '', message: 'no manifest files (*.yaml, *.yml, *.json) in the source path' }]);

/**
 * The time a parse child has for a plain render: twice a tool's, as Plain had no limit before and a
 * 21 MiB render took 28 s on 2 loaded cores.
 */
export const PLAIN_PARSE_TIMEOUT_MS = 120_000;

export const PlainRenderer: SyncRenderer = {
  type: 'Plain',
  render(files: readonly SourceFile[], options: RendererOptions): RenderResult {
    const selected = plainFiles(files);
    if (selected.length === 0) return noManifests();
    return plainManifests(selected, options.substitute);
  },
};

/**
 * Plain through a render cache: what a controller uses, since it renders the same source on every
 * reconcile. The key holds only what Plain reads (the files and spec.render.substitute), so Releases
 * of one source share an entry.
 */
export class CachedPlainRenderer implements Renderer {
  readonly type = 'Plain' as const;
  readonly cache: RenderCache;

  constructor(cache: RenderCache = new RenderCache()) {
    this.cache = cache;
  }

  render(files: readonly SourceFile[], options: RendererOptions): Promise<RenderResult> {
    const keyed = options.substitute === undefined ? {} : { substitute: options.substitute };
    return this.cache.getOrRender(
      renderKey('plain', files, keyed),
      async () => {
        const selected = plainFiles(files);
        if (selected.length === 0) return noManifests();
        // One buffer for the child's stdin; the job says where each file of it ends.
        const data = Buffer.concat(selected.map((f) => f.data));
        const job = {
          kind: 'plain',
          files: selected.map(({ path, format, data: d }) => ({ path, format, bytes: d.length })),
          vars: options.substitute,
        } as const;
        return parseToolOutput(job, data, {
          tool: 'Plain',
          where: '',
          timeoutMs: PLAIN_PARSE_TIMEOUT_MS,
          maxHeapMb: parseHeapMb(data.length),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
      },
      renderOwner(options),
    );
  }
}
