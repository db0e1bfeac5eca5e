// The object as convoy applies it: the render's object plus the Release's label and uid annotation
// (docs/design.md#tenancy-and-impersonation). Below both processes, so the deployer applies and the drift
// loop and `convoy diff` compare with the same function.
import { ANNOTATION_RELEASE_UID, LABEL_RELEASE } from '../api/constants.ts';
import type { Obj } from './types.ts';

/** The render's object with the release label (and uid annotation when the uid is known). Pure. */
export function labelled(obj: Obj, releaseLabel: string, releaseUid?: string): Obj {
  const metadata = { ...obj.metadata, labels: { ...obj.metadata.labels, [LABEL_RELEASE]: releaseLabel } };
  if (releaseUid !== undefined && releaseUid !== '')
    metadata.annotations = { ...obj.metadata.annotations, [ANNOTATION_RELEASE_UID]: releaseUid };
  return { ...obj, metadata };
}
