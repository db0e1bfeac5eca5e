// Which renders this process has dry-run in full against a target, so a later sync of the same render
// (a held wave gate, a PostSync wait, a forced sync, a self-heal) does not dry-run every object again
// (docs/design.md#reconcile-order, the dry run). What the dry run protects is that bad input changes
// nothing: a render the API rejects never gets half applied. A render is remembered only once every one of
// its objects passed (none skipped for a CRD or Namespace not yet installed), under the very client (so
// the identity: an impersonated ServiceAccount, a rotated kubeconfig gives a new client) that checked it,
// and forgotten when its apply fails, so the next attempt dry-runs it again. The memory is this process's
// only: a restarted controller dry-runs each render once more. Bounded: the oldest are forgotten first.

/** Renders remembered per client before the oldest are forgotten. */
export const DRY_RUN_MEMO_LIMIT = 20_000;

export class DryRunMemo<Client extends object = object> {
  readonly #byClient = new WeakMap<Client, Map<string, true>>();
  readonly #limit: number;

  constructor(limit = DRY_RUN_MEMO_LIMIT) {
    this.#limit = limit;
  }

  /** Whether `renderRef` of the Release `uid` passed a full dry run with `client` and has not failed since. */
  has(client: Client, uid: string, renderRef: string): boolean {
    return this.#byClient.get(client)?.has(key(uid, renderRef)) === true;
  }

  /** Every object of the render passed the dry run with this client. */
  passed(client: Client, uid: string, renderRef: string): void {
    let seen = this.#byClient.get(client);
    if (seen === undefined) {
      seen = new Map();
      this.#byClient.set(client, seen);
    }
    const k = key(uid, renderRef);
    seen.delete(k);
    seen.set(k, true);
    // a Map iterates in insertion order: the first key is the oldest
    for (const oldest of seen.keys()) {
      if (seen.size <= this.#limit) break;
      seen.delete(oldest);
    }
  }

  /** The render's apply (or a later dry run) failed: dry-run it again next time. */
  forget(client: Client, uid: string, renderRef: string): void {
    this.#byClient.get(client)?.delete(key(uid, renderRef));
  }
}

const key = (uid: string, renderRef: string) => `${uid} ${renderRef}`;
