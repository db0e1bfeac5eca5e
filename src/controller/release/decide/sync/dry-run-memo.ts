// Which renders this process has dry-run in full against a target, so a later sync of the same render
// (a held wave gate, a PostSync wait, a forced sync, a self-heal) does not dry-run every object again
// (docs/design.md#reconcile-order, the dry run). What the dry run protects is that bad input changes
// nothing: a render the API rejects never gets half applied. A render is remembered only once every one of
// its objects passed (none skipped for a CRD or Namespace not yet installed), under the very client (so
// the identity: an impersonated ServiceAccount, a rotated kubeconfig gives a new client) that checked it,
// and forgotten when its apply fails, so the next attempt dry-runs it again. The memory is this process's
// only: a restarted controller dry-runs each render once more. Bounded: the oldest are forgotten first.
// It also keeps a render the API refused once its own CRDs were installed for the dry run
// (act/crd-first.ts), so a later attempt of that very render says the same without creating and deleting
// the CRDs again on every retry; a forced sync or a new render tries again.

/** Renders remembered per client before the oldest are forgotten. */
export const DRY_RUN_MEMO_LIMIT = 20_000;

/** Why the API refused a render whose CRDs were installed for its dry run. */
export interface DryRunRefusal {
  readonly message: string;
  readonly httpStatus: number | undefined;
}

export class DryRunMemo<Client extends object = object> {
  readonly #byClient = new WeakMap<Client, Map<string, true | DryRunRefusal>>();
  readonly #limit: number;

  constructor(limit = DRY_RUN_MEMO_LIMIT) {
    this.#limit = limit;
  }

  /** Whether `renderRef` of the Release `uid` passed a full dry run with `client` and has not failed since. */
  has(client: Client, uid: string, renderRef: string): boolean {
    return this.#byClient.get(client)?.get(key(uid, renderRef)) === true;
  }

  /** Every object of the render passed the dry run with this client. */
  passed(client: Client, uid: string, renderRef: string): void {
    this.#remember(client, uid, renderRef, true);
  }

  /** The API refused the render once its CRDs were in (act/crd-first.ts): say so again, without a retry. */
  refused(client: Client, uid: string, renderRef: string, why: DryRunRefusal): void {
    this.#remember(client, uid, renderRef, why);
  }

  /** The refusal `refused` remembered for the render, if any. */
  refusal(client: Client, uid: string, renderRef: string): DryRunRefusal | undefined {
    const v = this.#byClient.get(client)?.get(key(uid, renderRef));
    return v === undefined || v === true ? undefined : v;
  }

  #remember(client: Client, uid: string, renderRef: string, value: true | DryRunRefusal): void {
    let seen = this.#byClient.get(client);
    if (seen === undefined) {
      seen = new Map();
      this.#byClient.set(client, seen);
    }
    const k = key(uid, renderRef);
    seen.delete(k);
    seen.set(k, value);
    // a Map iterates in insertion order: the first key is the oldest
    for (const oldest of seen.keys()) {
      if (seen.size <= this.#limit) break;
      seen.delete(oldest);
    }
  }

  /** The render's apply (or a later dry run) failed, or a forced sync asks again: dry-run it next time. */
  forget(client: Client, uid: string, renderRef: string): void {
    this.#byClient.get(client)?.delete(key(uid, renderRef));
  }
}

const key = (uid: string, renderRef: string) => `${uid} ${renderRef}`;
