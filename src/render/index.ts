// The public face of src/render: sources, renderers, the canonical render and renderRef.
export { HOOK_DELETE_POLICIES, type HookDeletePolicy, type HookSpec, hookOf } from './annotations.ts';
export { assembleRender } from './assemble.ts';
export {
  canonicalJson,
  canonicalRenderJson,
  compareObjects,
  kindRank,
  renderRef,
  sortCanonical,
} from './canonical.ts';
export { formatProblems, type Problem, RenderError, SourceError } from './errors.ts';
export { type GitAuth, gitAuthFromSecret } from './git/auth.ts';
export { GitSource, type GitSourceOptions } from './git/source.ts';
export { INLINE_FILE, InlineSource, inlineRevision } from './inline.ts';
export { describeKey, groupOf, keyString, objectKey, parseWave, waveOf } from './keys.ts';
export { manifestFormat, PlainRenderer } from './plain.ts';
export { type RenderOutcome, type RenderReleaseOptions, renderRelease } from './release.ts';
export type { Renderer, RendererOptions, RenderResult } from './renderer.ts';
export { namespacedOf } from './scope.ts';
export { credentialsFromSecretData, fetchSource, type Source, type Sources } from './source.ts';
export type * from './types.ts';
