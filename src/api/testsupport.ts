// Builders the unit tests share across layers (the read views of cli, server and ui; the controller's and
// the observers' table tests): render refs, a Release and a ReleaseInventory and its entries with just the
// fields a test sets. Used by tests only.
import { API_VERSION } from './constants.ts';
import type { InventoryEntry, Release, ReleaseInventory, ReleaseSpec, ReleaseStatus } from './types.ts';

export const R1 = `sha256:${'1'.repeat(64)}`;
export const R2 = `sha256:${'2'.repeat(64)}`;
export const R3 = `sha256:${'3'.repeat(64)}`;

/** Release namespace/name from an (empty) inline source, with `spec` on top; `status` only when given. */
export function testRelease(
  namespace: string,
  name: string,
  spec: Partial<ReleaseSpec> = {},
  status?: ReleaseStatus,
): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace },
    spec: { source: { inline: { manifests: '' } }, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

/** The inventory of Release namespace/name; `hooks` only when given (an old one may lack the field). */
export function inventoryOf(
  namespace: string,
  name: string,
  entries: InventoryEntry[],
  hooks?: ReleaseInventory['hooks'],
): ReleaseInventory {
  return {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name, namespace },
    entries,
    ...(hooks === undefined ? {} : { hooks }),
  };
}

/** An entry with the fields a test sets; `group` is the core group unless given. */
export const inventoryEntry = (
  fields: Omit<InventoryEntry, 'group'> & { group?: string },
): InventoryEntry => ({
  group: '',
  ...fields,
});

/** Builds the entries of one kind: namespace/name, recorded in `wave` for `renderRef`, with `more` on top. */
const entriesOf =
  (group: string, kind: string) =>
  (namespace: string, name: string, wave: number, renderRef: string, more: Partial<InventoryEntry> = {}) =>
    inventoryEntry({ group, kind, namespace, name, wave, renderRef, ...more });

export const configMapEntry = entriesOf('', 'ConfigMap');
export const deploymentEntry = entriesOf('apps', 'Deployment');

/**
 * A namespaced CustomResourceDefinition `<plural>.<group>` that serves and stores one version, v1, with
 * `schema` (default: any object); `version` adds to or overrides that version's fields.
 */
export function testCrd(
  group: string,
  kind: string,
  plural: string,
  schema: Readonly<Record<string, unknown>> = { type: 'object' },
  version: Readonly<Record<string, unknown>> = {},
) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...version },
      ],
    },
  };
}
