// Who asked for a sync, as the convoy API writes it beside each request annotation (*-by) and as the
// controller records it in a render's trigger (docs/design.md#field-ownership): here, below both, so the
// API, the controller and the UI read one format. Pure.

/** Who asked for a sync: the user the API authenticated, or a push a Receiver verified. */
export type Requester =
  | { readonly kind: 'user'; readonly username: string }
  | {
      readonly kind: 'receiver';
      readonly namespace: string;
      readonly name: string;
      /** The pushed branch (the Event names it; the annotation does not). */
      readonly branch?: string;
    };

/** The value of the *-by annotations: `user:<username>` or `receiver:<namespace>/<name>`. Pure. */
export function requesterValue(by: Requester): string {
  switch (by.kind) {
    case 'user':
      return `user:${by.username}`;
    case 'receiver':
      return `receiver:${by.namespace}/${by.name}`;
  }
}

/** A *-by annotation read back; undefined for a value convoy did not write. Pure. */
export function parseRequester(value: string | undefined): Requester | undefined {
  if (value?.startsWith('user:') === true && value.length > 5) {
    return { kind: 'user', username: value.slice(5) };
  }
  const m = /^receiver:([^/]+)\/(.+)$/.exec(value ?? '');
  if (m?.[1] !== undefined && m[2] !== undefined) return { kind: 'receiver', namespace: m[1], name: m[2] };
  return undefined;
}

/**
 * The observer's ServiceAccount (deploy/observer: convoy-observer, in whatever namespace convoy runs):
 * its /sync is a wake-up on a health edge (docs/design.md#controller-wake-ups), no one's request.
 */
const OBSERVER_ACCOUNT = /^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:convoy-observer$/;

/** Whether a *-by annotation names the observer: its request woke the controller, no user asked. */
export function byObserver(value: string | undefined): boolean {
  const by = parseRequester(value);
  return by?.kind === 'user' && OBSERVER_ACCOUNT.test(by.username);
}
