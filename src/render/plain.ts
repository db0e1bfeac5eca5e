// The Plain renderer: every YAML and JSON file under the source path, in path order, with
// ${NAME} substitution made on each file's text before it is parsed. CachedPlainRenderer keeps its
// results in the render cache, as the tool renderers do (docs/design.md#render-cache).
import { RenderCache, renderKey } from './cache.ts';
import type { Problem } from './errors.ts';
import { type ManifestFormat, parseManifests } from './parse.ts';
import type { Renderer, RendererOptions, RenderResult, SyncRenderer } from './renderer.ts';
import { fail, ok } from './result.ts';
import { substitute } from './substitute.ts';
import type { Manifest, SourceFile } from './types.ts';

/** The format of a manifest file, or undefined for a file Plain does not read. */
export function manifestFormat(path: string): ManifestFormat | undefined {
  // Dotfiles and dot-directories (.git, .github, .helmignore) are never manifests.
  if (path.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const lower = path.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.json')) return 'json';
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export const PlainRenderer: SyncRenderer = {
  type: 'Plain',
  render(files: readonly SourceFile[], options: RendererOptions): RenderResult {
    const selected = files
      .map((f) => ({ file: f, format: manifestFormat(f.path) }))
      .filter((f) => f.format !== undefined)
      .sort((a, b) => compareStrings(a.file.path, b.file.path));
    if (selected.length === 0) {
      return fail([{ where: '', message: 'no manifest files (*.yaml, *.yml, *.json) in the source path' }]);
    }
    const problems: Problem[] = [];
    const manifests: Manifest[] = [];
    for (const { file, format } of selected) {
      let text: string;
      try {
        text = utf8.decode(file.data);
      } catch {
        problems.push({ where: file.path, message: 'not valid UTF-8' });
        continue;
      }
      if (options.substitute !== undefined) text = substitute(text, options.substitute);
      const parsed = parseManifests(text, file.path, format ?? 'yaml');
      if (parsed.ok) manifests.push(...parsed.value);
      else problems.push(...parsed.problems);
    }
    return problems.length === 0 ? ok(manifests) : fail(problems);
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
    return this.cache.getOrRender(renderKey('plain', files, keyed), async () =>
      PlainRenderer.render(files, options),
    );
  }
}
