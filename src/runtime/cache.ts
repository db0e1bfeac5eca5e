// The informer's cache: objects by key (namespace/name, or name when cluster-scoped) with
// secondary indexes. Objects are deep-frozen on the way in, so readers can share them and
// cannot corrupt the cache, and their equal strings share one copy (shared-strings.ts).
import type { KubeObject } from './filters.ts';
import { freezeSharing, processStrings, type StringTable } from './shared-strings.ts';

export type IndexFunc<T> = (obj: T) => readonly string[];

export function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Read-only view handed to controllers. */
export interface CacheReader<T> {
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  byIndex(index: string, value: string): T[];
  size(): number;
}

export class Cache<T extends KubeObject> implements CacheReader<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index -> value -> keys */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  readonly #strings: StringTable;

  constructor(strings: StringTable = processStrings) {
    this.#strings = strings;
  }

  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new Error(`index ${name} already exists`);
    this.#indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.#indexes.set(name, idx);
    for (const [key, obj] of this.#items) this.#indexAdd(idx, fn, key, obj);
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  size(): number {
    return this.#items.size;
  }

  byIndex(index: string, value: string): T[] {
    const idx = this.#indexes.get(index);
    if (idx === undefined) throw new Error(`no index ${index}`);
    const keys = idx.get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.#items.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  /** Stores obj (frozen) and returns the object it replaced. */
  upsert(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    freezeSharing(obj, this.#strings);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) {
      const idx = this.#indexes.get(name);
      if (idx !== undefined) this.#indexAdd(idx, fn, key, obj);
    }
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  #indexAdd(idx: Map<string, Set<string>>, fn: IndexFunc<T>, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let s = idx.get(v);
      if (s === undefined) {
        s = new Set();
        idx.set(v, s);
      }
      s.add(key);
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const idx = this.#indexes.get(name);
      if (idx === undefined) continue;
      for (const v of fn(obj)) {
        const s = idx.get(v);
        s?.delete(key);
        if (s?.size === 0) idx.delete(v);
      }
    }
  }
}

/** Index by namespace, the most common secondary index. */
export const byNamespace: IndexFunc<KubeObject> = (o) =>
  o.metadata?.namespace ? [o.metadata.namespace] : [];
