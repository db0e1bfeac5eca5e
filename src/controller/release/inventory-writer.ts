// Writes the controller's part of a ReleaseInventory: Server-Side Apply under convoy-controller of the
// keys, version, wave and renderRef of every entry it keeps (an apply that leaves an entry out would
// drop the controller's fields of it), and the explicit removal patch for entries that leave
// (DESIGN 2: another manager's fields would keep the item alive after a plain apply leaves it out).
import { API_VERSION, FIELD_MANAGERS } from '../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  InventoryKey,
  Release,
  ReleaseInventory,
} from '../../api/types.ts';
import { applyObject } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { removeInventoryItems } from '../../kube/inventory.ts';
import { entryKey } from './sync/index.ts';

/** The fields of an entry convoy-controller owns (DESIGN 4.7). */
export function controllerFields(e: InventoryEntry): InventoryEntry {
  const out: InventoryEntry = { group: e.group, kind: e.kind, namespace: e.namespace, name: e.name };
  if (e.version !== undefined) out.version = e.version;
  if (e.wave !== undefined) out.wave = e.wave;
  if (e.renderRef !== undefined) out.renderRef = e.renderRef;
  return out;
}

function controllerHookFields(h: InventoryHook): InventoryHook {
  const { state: _s, reason: _r, message: _m, finishedAt: _f, ...mine } = h;
  return mine;
}

/** Entries of `current` updated by `changes` (same key: replaced), in a stable order. */
export function mergeEntries(
  current: readonly InventoryEntry[],
  changes: readonly InventoryEntry[],
): InventoryEntry[] {
  const byKey = new Map<string, InventoryEntry>();
  for (const e of current) byKey.set(entryKey(e), controllerFields(e));
  for (const e of changes) byKey.set(entryKey(e), controllerFields(e));
  return [...byKey.values()];
}

export class InventoryWriter {
  readonly #client: KubeClient;
  readonly #release: Release;
  #current: ReleaseInventory | undefined;

  /** `current`: the inventory as last read; the writer tracks it through its own writes. */
  constructor(client: KubeClient, release: Release, current: ReleaseInventory | undefined) {
    this.#client = client;
    this.#release = release;
    this.#current = current;
  }

  get entries(): readonly InventoryEntry[] {
    return this.#current?.entries ?? [];
  }

  get inventory(): ReleaseInventory | undefined {
    return this.#current;
  }

  /** Adds or updates `changes`, keeping every other entry the controller holds. */
  async record(changes: readonly InventoryEntry[]): Promise<void> {
    if (changes.length === 0) return;
    const { name = '', namespace = '', uid = '' } = this.#release.metadata;
    const entries = mergeEntries(
      this.entries.filter((e) => e.renderRef !== undefined || e.wave !== undefined),
      changes,
    );
    const body: ReleaseInventory = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: {
        name,
        namespace,
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'Release', name, uid, controller: true, blockOwnerDeletion: true },
        ],
      },
      entries,
    };
    const hooks = (this.#current?.hooks ?? []).filter((h) => h.phase !== undefined).map(controllerHookFields);
    if (hooks.length > 0) body.hooks = hooks;
    this.#current = await applyObject(this.#client, body, {
      fieldManager: FIELD_MANAGERS.controller,
      force: true,
    });
  }

  /** Takes entries out for good (explicit patch). */
  async remove(keys: readonly InventoryKey[]): Promise<void> {
    if (keys.length === 0) return;
    const { name = '', namespace = '' } = this.#release.metadata;
    const result = await removeInventoryItems(this.#client, { namespace, name }, keys);
    this.#current = result.inventory;
  }
}
