// The render store: content-addressed renders kept as Secrets, and the keep-set for its gc.
export { RenderStoreCorruptError, RenderStoreError } from './errors.ts';
export { rendersToKeep } from './keep.ts';
export { SECRET_TYPE as RENDER_SECRET_TYPE } from './layout.ts';
export { SecretRenderStore, type SecretRenderStoreOptions } from './secrets.ts';
export type { OwnerRef, PutOptions, RenderStore, StoredRenderMeta } from './types.ts';
