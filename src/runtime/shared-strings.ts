// One copy of each equal string in the informer caches. JSON.parse gives every string value its own copy:
// at 3,000 Releases the heap held ~600,000 strings of at most 40 characters, the same inventory message
// once per entry (30,000 times), the same kinds, namespaces, states and rule names once per object.
// The cache passes each object through a StringTable before freezing it, so equal values share one
// string and the parsed copies become garbage. docs/design.md#shared-strings.

/** Longer strings are rarely equal (manifests, certificates) and are left as they are. */
export const SHARED_STRING_MAX_LENGTH = 128;
/** Entries in each of the table's two generations: its memory is bounded whatever the objects hold. */
export const SHARED_STRING_GENERATION = 32_768;

/**
 * A bounded table of canonical strings in two generations. A string found in the old generation moves
 * to the young one, so strings that keep coming back (kinds, states, messages) stay; one seen once
 * (a uid, a resourceVersion) leaves when the generations turn over.
 */
export class StringTable {
  #young = new Map<string, string>();
  #old = new Map<string, string>();
  readonly #generation: number;
  readonly #maxLength: number;

  constructor(generation = SHARED_STRING_GENERATION, maxLength = SHARED_STRING_MAX_LENGTH) {
    this.#generation = generation;
    this.#maxLength = maxLength;
  }

  /** The table's copy of s, equal to s; s itself the first time it is seen. */
  share(s: string): string {
    if (s.length > this.#maxLength) return s;
    const young = this.#young.get(s);
    if (young !== undefined) return young;
    const kept = this.#old.get(s) ?? s;
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(kept, kept);
    return kept;
  }

  /** Whether the table holds a copy of s (for tests). */
  holds(s: string): boolean {
    return this.#young.has(s) || this.#old.has(s);
  }

  /** Entries held, both generations (for tests). */
  size(): number {
    return this.#young.size + this.#old.size;
  }
}

/** The table every informer cache of the process shares: an inventory and a Release share their strings. */
export const processStrings = new StringTable();

/**
 * Freezes o and everything in it (so readers can share the cached object and cannot corrupt it), putting
 * the table's copy in place of every string value on the way.
 */
export function freezeSharing<T>(o: T, table: StringTable): T {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return o;
  const rec = o as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    if (typeof v === 'string') rec[k] = table.share(v);
    else if (v !== null && typeof v === 'object') freezeSharing(v, table);
  }
  return Object.freeze(o);
}
