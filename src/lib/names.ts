// The namespace and name of an object as strings: "" where metadata leaves them out (a cluster-scoped
// object has no namespace; an object built before it is named has no name). One helper for the idiom
// that was spelled out at every call site.

interface Named {
  readonly metadata?: { readonly namespace?: string | undefined; readonly name?: string | undefined };
}

export function namespaceOf(o: Named): string {
  return o.metadata?.namespace ?? '';
}

export function nameOf(o: Named): string {
  return o.metadata?.name ?? '';
}
