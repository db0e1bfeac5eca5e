// Errors of the render store. Corruption is its own class because callers treat it
// differently from an unreachable API server: retrying cannot repair a corrupt blob.

export class RenderStoreError extends Error {
  override name = 'RenderStoreError';
}

/** The stored blob does not reassemble into a render whose ref is the address it is stored under. */
export class RenderStoreCorruptError extends RenderStoreError {
  override name = 'RenderStoreCorruptError';
  readonly renderRef: string;
  constructor(renderRef: string, detail: string) {
    super(`stored render ${renderRef} is corrupt: ${detail}`);
    this.renderRef = renderRef;
  }
}
