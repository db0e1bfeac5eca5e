// The edge of job checks in a reconcile (docs/design.md#verification): lists the Release's check Jobs in
// the target namespace (only when some may exist), then creates the ones the verification asks for under
// the Release's identity (the target's impersonating client, as hook workloads) and deletes the ones no
// unfinished verification of R asks for. A failure is a note (an Event), never a failed sync: the
// observer's timeout turns a Job that never came into an inconclusive measurement.
import { FIELD_MANAGERS, LABEL_RELEASE } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { LABEL_VERIFICATION_CHECK, verificationJobNamespace } from '../../../api/verification-job.ts';
import { applyObject } from '../../../kube/apply.ts';
import { isKubeError } from '../../../kube/errors.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { releaseLabelValue } from '../../../store/layout.ts';
import {
  jobsMayExist,
  type LiveJob,
  planVerificationJobs,
  verificationJobObject,
  wantedJobs,
} from '../decide/verification-jobs.ts';
import type { Target } from './target.ts';

/** At most this many Jobs of one Release's checks are read in one pass (the rest at the next). */
const LIST_LIMIT = 500;

const why = (err: unknown) => (isKubeError(err) ? err.apiMessage : errorMessage(err));

/** Creates and deletes the Release's check Jobs as its verification needs; returns the notes. */
export async function verificationJobsStep(
  release: Release,
  target: Pick<Target, 'client' | 'readClient'>,
  inventory: ReleaseInventory | undefined,
): Promise<string[]> {
  const wanted = wantedJobs(release, inventory);
  if (!jobsMayExist(inventory, wanted)) return [];
  const namespace = verificationJobNamespace(release);
  const label = releaseLabelValue(namespaceOf(release), nameOf(release));
  const uid = release.metadata.uid ?? '';
  const ref = { apiVersion: 'batch/v1', kind: 'Job', namespace };
  const notes: string[] = [];
  let live: readonly LiveJob[];
  try {
    const page = await target.readClient.listPage<LiveJob>(ref, {
      labelSelector: `${LABEL_RELEASE}=${label},${LABEL_VERIFICATION_CHECK}`,
      limit: LIST_LIMIT,
    });
    live = page.items;
  } catch (err) {
    return [`could not list the Jobs of verification checks in ${namespace}: ${why(err)}`];
  }
  for (const action of planVerificationJobs(wanted, live, uid)) {
    switch (action.kind) {
      case 'create': {
        const obj = verificationJobObject(action.want, namespace, label, uid);
        try {
          await applyObject(target.client, obj, { fieldManager: FIELD_MANAGERS.deployer, force: true });
          notes.push(
            `created Job ${namespace}/${action.want.run.name} for check ${action.want.attempt.check}`,
          );
        } catch (err) {
          notes.push(
            `could not create Job ${namespace}/${action.want.run.name} for check ${action.want.attempt.check}: ${why(err)}`,
          );
        }
        break;
      }
      case 'delete':
        try {
          await target.client.delete(
            { ...ref, name: action.name },
            { propagationPolicy: 'Background', ...(action.uid !== undefined ? { uid: action.uid } : {}) },
          );
        } catch (err) {
          notes.push(`could not delete Job ${namespace}/${action.name} of a verification check: ${why(err)}`);
        }
        break;
      case 'foreign':
        notes.push(action.message);
        break;
      default:
        return assertNever(action);
    }
  }
  return notes;
}
