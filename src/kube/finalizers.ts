// Taking one finalizer off an object: a JSON patch guarded by a test of the entry it removes, so a
// concurrent change of the list fails (422) and is retried rather than removing someone else's entry.
import type { ObjectHeader } from '../api/types.ts';
import type { KubeClient, ObjectRef } from './client.ts';
import { isNotFound } from './errors.ts';

/** Removes `finalizer` from the live object; false when the object or the finalizer is already gone. */
export async function removeFinalizerOf(
  client: KubeClient,
  ref: ObjectRef & { readonly name: string },
  finalizer: string,
): Promise<boolean> {
  const live = await client.get<ObjectHeader>(ref);
  const i = live?.metadata.finalizers?.indexOf(finalizer) ?? -1;
  if (live === undefined || i < 0) return false;
  try {
    await client.request({
      method: 'PATCH',
      path: await client.pathOf(ref),
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: `/metadata/finalizers/${i}`, value: finalizer },
        { op: 'remove', path: `/metadata/finalizers/${i}` },
      ],
    });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
