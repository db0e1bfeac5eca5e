// What the release controller's Release cache keeps of managedFields: only its own field manager's
// entries. The status writer compares against nothing else, and at 1,000 Releases the other managers'
// entries (the observer's, the API's, whoever wrote the spec) were heap the process never read
// (docs/design.md#process-bundles). Pure; the informer applies it to every object before caching it.
import { FIELD_MANAGERS } from '../../../api/constants.ts';
import type { KubeObject } from '../../../runtime/index.ts';

export function ownManagedFieldsOnly(r: KubeObject): KubeObject {
  const all = r.metadata?.managedFields as readonly { readonly manager?: string }[] | undefined;
  const mine = all?.filter((m) => m.manager === FIELD_MANAGERS.controller);
  if (mine === undefined || mine.length === all?.length) return r;
  return { ...r, metadata: { ...r.metadata, managedFields: mine } };
}
