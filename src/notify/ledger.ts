// The ledger: per (Alert, Release, class) the key last planned and the key last delivered. Delivered
// keys are what Alert status.notified persists, so a controller killed with -9 plans again, after its
// restart, exactly the facts it had not delivered (a message sent just before the kill but not yet
// written down may be sent twice; nothing observed is lost). Each Alert is seeded once from its status,
// the first time it is seen; from then on memory is the truth and the status its copy.
import type { Alert, NotifiedEntry } from '../api/types.ts';
import type { FactClass } from './facts.ts';

interface AlertBook {
  readonly uid: string;
  /** `${release}\0${class}` → the entry last delivered (or recorded as known). */
  readonly delivered: Map<string, NotifiedEntry>;
  /** Slots this process delivered (not only seeded from the status). */
  readonly mine: Set<string>;
  /** `${release}\0${class}` → the key last planned (queued, or delivered). */
  readonly planned: Map<string, string>;
  dirty: boolean;
}

const slot = (release: string, cls: FactClass) => `${release}\0${cls}`;

export class Ledger {
  readonly #books = new Map<string, AlertBook>();

  /** Seeds the Alert's book from its status the first time it is seen (again after it was recreated). */
  seed(alertKey: string, alert: Pick<Alert, 'metadata' | 'status'>): void {
    const uid = alert.metadata.uid ?? '';
    const have = this.#books.get(alertKey);
    if (have !== undefined && have.uid === uid) return;
    const delivered = new Map<string, NotifiedEntry>();
    const planned = new Map<string, string>();
    for (const e of alert.status?.notified ?? []) {
      const s = slot(e.release, e.event as FactClass);
      delivered.set(s, e);
      planned.set(s, e.key);
    }
    this.#books.set(alertKey, { uid, delivered, planned, mine: new Set(), dirty: false });
  }

  /**
   * Takes the Alert's status again, for a replica that just gained shards: what another replica delivered
   * for those Releases while this one was standing by is known only there. Slots this process delivered
   * itself keep its memory (they are at least as new); every other slot takes the status.
   */
  reseed(alertKey: string, alert: Pick<Alert, 'metadata' | 'status'>): void {
    const book = this.#books.get(alertKey);
    if (book === undefined || book.uid !== (alert.metadata.uid ?? '')) {
      this.#books.delete(alertKey);
      this.seed(alertKey, alert);
      return;
    }
    for (const e of alert.status?.notified ?? []) {
      const s = slot(e.release, e.event as FactClass);
      if (book.mine.has(s)) continue;
      book.delivered.set(s, e);
      book.planned.set(s, e.key);
    }
  }

  lastPlanned(alertKey: string, release: string, cls: FactClass): string | undefined {
    return this.#books.get(alertKey)?.planned.get(slot(release, cls));
  }

  lastDelivered(alertKey: string, release: string, cls: FactClass): string | undefined {
    return this.#books.get(alertKey)?.delivered.get(slot(release, cls))?.key;
  }

  planned(alertKey: string, release: string, cls: FactClass, key: string): void {
    this.#books.get(alertKey)?.planned.set(slot(release, cls), key);
  }

  /** Delivered, or known without a send; `time` is when. */
  delivered(alertKey: string, release: string, cls: FactClass, key: string, time: string): void {
    const book = this.#books.get(alertKey);
    if (book === undefined) return;
    const s = slot(release, cls);
    if (book.delivered.get(s)?.key === key) return;
    book.delivered.set(s, { release, event: cls, key, time });
    book.mine.add(s);
    book.dirty = true;
  }

  /** A planned key that will not be delivered: the next pass may plan that fact again. */
  abandoned(alertKey: string, release: string, cls: FactClass, key: string): void {
    const book = this.#books.get(alertKey);
    const s = slot(release, cls);
    if (book === undefined || book.planned.get(s) !== key) return;
    const d = book.delivered.get(s)?.key;
    if (d === undefined) book.planned.delete(s);
    else book.planned.set(s, d);
  }

  /** A Release that is gone: its entries leave every book of its namespace. */
  forgetRelease(namespace: string, release: string): void {
    for (const [k, book] of this.#books) {
      if (!k.startsWith(`${namespace}/`)) continue;
      for (const s of [...book.delivered.keys()]) {
        if (s.startsWith(`${release}\0`)) {
          book.delivered.delete(s);
          book.mine.delete(s);
          book.dirty = true;
        }
      }
      for (const s of [...book.planned.keys()]) if (s.startsWith(`${release}\0`)) book.planned.delete(s);
    }
  }

  forgetAlert(alertKey: string): void {
    this.#books.delete(alertKey);
  }

  /**
   * status.notified of the Alert, in a stable order. `mineOnly`: only what this process delivered — for a
   * replica that writes under its own field manager, which must not put back another replica's older
   * entries it was seeded with.
   */
  entries(alertKey: string, mineOnly = false): NotifiedEntry[] {
    const book = this.#books.get(alertKey);
    if (book === undefined) return [];
    return [...book.delivered]
      .filter(([s]) => !mineOnly || book.mine.has(s))
      .map(([, e]) => e)
      .sort((a, b) =>
        a.release === b.release ? a.event.localeCompare(b.event) : a.release.localeCompare(b.release),
      );
  }

  /** Alerts whose book changed since their last write. */
  dirty(): string[] {
    return [...this.#books].filter(([, b]) => b.dirty).map(([k]) => k);
  }

  markClean(alertKey: string): void {
    const book = this.#books.get(alertKey);
    if (book !== undefined) book.dirty = false;
  }

  markDirty(alertKey: string): void {
    const book = this.#books.get(alertKey);
    if (book !== undefined) book.dirty = true;
  }
}
