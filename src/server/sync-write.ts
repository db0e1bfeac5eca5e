// The one write a sync request makes, shared by POST …/sync and the push Receivers: read the Release,
// plan the convoy-api annotations (sync.ts) and apply them with Server-Side Apply, retried on 409 (the
// apply carries the resourceVersion it planned from, so a concurrent request can never lose an
// annotation to a stale carry-over; each retry waits a little longer, at random, so writers that met
// once do not meet again). Then an Event on the Release names who asked (kubectl describe,
// convoy events), handed to the recorder so a slow Event never delays the answer.
import { setTimeout as delay } from 'node:timers/promises';
import { API_VERSION as CRD_API_VERSION, FIELD_MANAGERS } from '../api/constants.ts';
import type { Requester } from '../api/requester.ts';
import type { Release } from '../api/types.ts';
import { applyObject } from '../kube/apply.ts';
import type { KubeClient } from '../kube/client.ts';
import { isConflict } from '../kube/errors.ts';
import { eventAbout } from '../kube/events.ts';
import type { SyncRequest } from './body.ts';
import { type ApiError, apiError, isApiError } from './status.ts';
import { planSync, type SyncSet, syncEvent } from './sync.ts';

/** The component convoy's HTTP API reports its Events as. */
export const API_COMPONENT = 'convoy-api';

/** Where the Events go: the process's EventRecorder (src/kube/events.ts). */
export interface EventSink {
  record(event: object): void;
}

const SYNC_ATTEMPTS = 6;
/** The longest wait before the first retry; it doubles with each (at most 0.32 s before the last). */
const RETRY_BASE_MS = 10;

export interface ReleaseRef {
  readonly namespace: string;
  readonly name: string;
}

export async function getRelease(client: KubeClient, ref: ReleaseRef): Promise<Release | ApiError> {
  const release = await client.get<Release>({
    apiVersion: CRD_API_VERSION,
    kind: 'Release',
    namespace: ref.namespace,
    name: ref.name,
  });
  return (
    release ??
    apiError(
      404,
      `release ${JSON.stringify(ref.name)} not found in namespace ${JSON.stringify(ref.namespace)}`,
    )
  );
}

/** Requests a sync of the Release; the annotations set, or the error the client gets. Throws API failures. */
export async function writeSync(
  client: KubeClient,
  ref: ReleaseRef,
  req: SyncRequest,
  now: () => Date,
  by: Requester,
  events: EventSink | undefined,
): Promise<{ readonly ok: true; readonly set: SyncSet } | { readonly ok: false; readonly error: ApiError }> {
  for (let attempt = 1; ; attempt++) {
    const release = await getRelease(client, ref);
    if (isApiError(release)) return { ok: false, error: release };
    const at = now();
    const decision = planSync(release, req, at, by);
    if (!decision.ok) return decision;
    try {
      await applyObject(
        client,
        {
          apiVersion: CRD_API_VERSION,
          kind: 'Release',
          metadata: {
            namespace: ref.namespace,
            name: ref.name,
            annotations: { ...decision.plan.annotations },
          },
        },
        {
          fieldManager: FIELD_MANAGERS.api,
          // These annotations are convoy-api's (docs/design.md#field-ownership), whoever touched them last.
          force: true,
          uidPrecondition: release.metadata.uid,
          resourceVersionPrecondition: release.metadata.resourceVersion,
        },
      );
      const set = decision.plan.set;
      // Named by the request's own stamp: a retried create of it is a 409, counted as recorded.
      const name = `${ref.name.slice(0, 200)}.sync-${Date.parse(set.syncRequestedAt).toString(36)}`;
      events?.record(
        eventAbout(release, { type: 'Normal', name, ...syncEvent(set, by) }, API_COMPONENT, at.getTime()),
      );
      return { ok: true, set };
    } catch (err) {
      if (!isConflict(err) || attempt >= SYNC_ATTEMPTS) throw err;
      await delay(Math.random() * RETRY_BASE_MS * 2 ** attempt);
    }
  }
}
