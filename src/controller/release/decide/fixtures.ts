// Builders shared by the release controller's unit tests: an inventory entry of a ConfigMap in the
// namespace app, wave 0, with the fields a row adds.
import { configMapEntry } from '../../../api/testsupport.ts';
import type { InventoryEntry } from '../../../api/types.ts';

/** The ConfigMap app/`name` (version v1, wave 0) recorded for `renderRef`, with `extra` on top. */
export function cmEntry(
  name: string,
  renderRef: string,
  extra: Partial<InventoryEntry> = {},
): InventoryEntry {
  return configMapEntry('app', name, 0, renderRef, { version: 'v1', ...extra });
}
