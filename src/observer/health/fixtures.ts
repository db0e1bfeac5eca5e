// Builders shared by the health tests: an inventory entry of a Deployment in the namespace ns, wave 0,
// with the fields a row adds.
import type { InventoryEntry } from '../../api/types.ts';

export function deploymentEntry(name: string, extra: Partial<InventoryEntry> = {}): InventoryEntry {
  return { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'ns', name, wave: 0, ...extra };
}
