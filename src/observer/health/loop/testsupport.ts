// Fixtures of the health loop's orchestration tests: a Release with healthAssessment, and its inventory
// as the loop's informer would hand it over.
import type { InventoryEntry, Release, ReleaseInventory } from '../../../api/types.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';

/** Release ns/web, assessed by no rule set unless a test gives some. */
export const assessedRelease: Release = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { source: { inline: { manifests: '' } }, healthAssessment: {} },
};

/** The inventory of ns/web holding `entries`, one part. */
export const mergedInventory = (entries: InventoryEntry[]): MergedInventory => {
  const inventory: ReleaseInventory = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name: 'web', namespace: 'ns', uid: 'u', resourceVersion: '1' },
    entries,
  };
  return { inventory, parts: new Map(), objects: new Map([[0, inventory]]) };
};
