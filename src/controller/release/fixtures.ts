// Builders shared by the release controller's unit tests: an inventory entry of a ConfigMap in the
// namespace app, wave 0, with the fields a row adds.
import type { InventoryEntry } from '../../api/types.ts';

export function cmEntry(
  name: string,
  renderRef: string,
  extra: Partial<InventoryEntry> = {},
): InventoryEntry {
  return {
    group: '',
    kind: 'ConfigMap',
    namespace: 'app',
    name,
    version: 'v1',
    wave: 0,
    renderRef,
    ...extra,
  };
}
