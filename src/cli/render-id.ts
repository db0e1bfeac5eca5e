// Short render ids: users type and read the first 12 hex digits of a renderRef (like git's short
// commits); commands resolve what was typed against the renders a Release knows (its status and its
// render store) to the full `sha256:<64 hex>` the API needs. Pure.

export type RenderIdMatch =
  | { readonly kind: 'one'; readonly renderRef: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly renderRefs: readonly string[] };

/** "sha256:0123456789ab" or "0123456789ab" → the hex digits typed. */
export function renderIdDigits(id: string): string {
  return id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
}

export function isFullRenderRef(id: string): boolean {
  return /^sha256:[0-9a-f]{64}$/.test(id);
}

/** The renderRefs among `known` that start with the typed digits (duplicates ignored). */
export function matchRenderId(id: string, known: readonly string[]): RenderIdMatch {
  const digits = renderIdDigits(id);
  const hits = [...new Set(known)].filter((r) => r.startsWith(`sha256:${digits}`));
  if (hits.length === 1 && hits[0] !== undefined) return { kind: 'one', renderRef: hits[0] };
  if (hits.length === 0) return { kind: 'none' };
  return { kind: 'ambiguous', renderRefs: hits };
}

/** Every renderRef a Release's status names. */
export function statusRenderRefs(
  status:
    | {
        readonly currentRender?: { readonly renderRef: string };
        readonly lastAttempted?: { readonly renderRef: string };
        readonly lastSuccessful?: { readonly renderRef: string };
        readonly lastHealthy?: { readonly renderRef: string };
        readonly rollout?: { readonly renderRef: string };
        readonly history?: readonly { readonly renderRef: string }[];
      }
    | undefined,
): string[] {
  if (status === undefined) return [];
  return [
    status.currentRender?.renderRef,
    status.lastAttempted?.renderRef,
    status.lastSuccessful?.renderRef,
    status.lastHealthy?.renderRef,
    status.rollout?.renderRef,
    ...(status.history ?? []).map((h) => h.renderRef),
  ].filter((r): r is string => r !== undefined && r !== '');
}
