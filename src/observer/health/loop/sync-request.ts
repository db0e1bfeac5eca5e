// requestSync: how the health loop wakes the controller on an edge (docs/design.md#controller-wake-ups): POST
// …/releases/{name}/sync with body {} to the controller-manager's HTTP API, with the observer's own
// credentials — through the kube-apiserver's aggregation layer (the default) or straight to the API's URL.
// Writing the annotation here instead is a degraded mode for clusters without the aggregated API, chosen only
// explicitly. Any failure throws: the caller keeps the edge and the queue retries the pass.
import { request as httpsRequest } from 'node:https';
import {
  ANNOTATION_SYNC_REQUESTED_AT,
  ANNOTATION_SYNC_REQUESTED_BY,
  API_VERSION,
  FIELD_MANAGERS,
  AGGREGATED_GROUP_VERSION as GROUP_VERSION,
} from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { isKubeError } from '../../../kube/errors.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';

export type SyncVia =
  /** POST through kube-apiserver: the kubeconfig's server + /apis/api.convoy.kumodo.io/v1alpha1/…, its auth. */
  | { readonly kind: 'aggregated' }
  /** POST straight to the API (https://host:port), with the kubeconfig's bearer token. */
  | { readonly kind: 'direct'; readonly url: string; readonly caPem?: string }
  /** Degraded: merge-patch sync-requested-at as convoy-api; no API involved. */
  | { readonly kind: 'annotation' };

/** sent: the controller will wake; gone: the Release no longer exists, nothing to wake. */
export type SyncOutcome = 'sent' | 'gone';

/** A wake-up that did not get through; the edge is kept. */
export class SyncRequestError extends Error {
  override readonly name = 'SyncRequestError';
  /** HTTP status, when the API answered at all. */
  readonly code: number | undefined;
  constructor(message: string, code: number | undefined, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
  }
}

const TIMEOUT_MS = 30_000;

export function syncPath(release: Release): string {
  const ns = encodeURIComponent(namespaceOf(release));
  const name = encodeURIComponent(nameOf(release));
  return `/apis/${GROUP_VERSION}/namespaces/${ns}/releases/${name}/sync`;
}

/** Where the wake-ups go, for logs. */
export function describeSyncVia(via: SyncVia): string {
  switch (via.kind) {
    case 'aggregated':
      return `POST /sync through kube-apiserver (/apis/${GROUP_VERSION})`;
    case 'direct':
      return `POST /sync to ${via.url}`;
    case 'annotation':
      return 'annotation (degraded: no API)';
  }
}

/**
 * Wakes the controller for `release`. `client` is the observer's client of the cluster the Release lives
 * in: its credentials sign the request, and on a 404 it tells a deleted Release (gone) from an API that
 * does not serve the route (an error: the edge must not be dropped because the API is missing).
 */
export async function requestSync(
  client: KubeClient,
  via: SyncVia,
  release: Release,
  now: Date = new Date(),
): Promise<SyncOutcome> {
  let notFound: string;
  switch (via.kind) {
    case 'aggregated': {
      try {
        await client.request({ method: 'POST', path: syncPath(release), body: {} });
        return 'sent';
      } catch (err) {
        if (!isKubeError(err)) {
          throw new SyncRequestError(
            `POST ${syncPath(release)} through kube-apiserver: ${message(err)}`,
            undefined,
            err,
          );
        }
        if (err.code !== 404) throw new SyncRequestError(err.message, err.code, err);
        notFound = `${err.message} (is the APIService v1alpha1.api.convoy.kumodo.io registered?)`;
      }
      break;
    }
    case 'direct': {
      const res = await postDirect(client, via, release);
      if (res.code >= 200 && res.code < 300) return 'sent';
      const text = `POST ${via.url}${syncPath(release)}: HTTP ${res.code}: ${res.message}`;
      if (res.code !== 404) throw new SyncRequestError(text, res.code);
      notFound = text;
      break;
    }
    case 'annotation':
      try {
        await patchAnnotation(client, release, now);
        return 'sent';
      } catch (err) {
        if (!isKubeError(err) || err.code !== 404) throw err;
        notFound = err.message;
      }
      break;
  }
  if (!(await releaseExists(client, release))) return 'gone';
  throw new SyncRequestError(`${notFound}; the Release exists, so the sync API is not served there`, 404);
}

async function releaseExists(client: KubeClient, release: Release): Promise<boolean> {
  const live = await client.get<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    namespace: namespaceOf(release),
    name: nameOf(release),
  });
  // A Release re-created under the same name is another object: this edge was about the old one.
  return (
    live !== undefined && (release.metadata.uid === undefined || live.metadata.uid === release.metadata.uid)
  );
}

/** The degraded mode: sets what /sync sets, without the API's carry-over of approvals (merge patch keeps them). */
async function patchAnnotation(client: KubeClient, release: Release, now: Date): Promise<void> {
  const path = await client.pathOf({
    apiVersion: API_VERSION,
    kind: 'Release',
    namespace: release.metadata.namespace,
    name: nameOf(release),
  });
  await client.request({
    method: 'PATCH',
    path,
    contentType: 'application/merge-patch+json',
    body: annotationPatch(now),
    query: { fieldManager: FIELD_MANAGERS.api },
  });
}

/**
 * The degraded mode's merge patch: the stamp in milliseconds (two wake-ups within one second must still
 * change it), and the requester of an earlier /sync removed, as /sync does for a request without one —
 * else the UI's timeline would name that user for the observer's wake-up.
 */
export function annotationPatch(now: Date): { metadata: { annotations: Record<string, string | null> } } {
  return {
    metadata: {
      annotations: {
        [ANNOTATION_SYNC_REQUESTED_AT]: now.toISOString(),
        [ANNOTATION_SYNC_REQUESTED_BY]: null,
      },
    },
  };
}

/** One HTTPS POST; no keep-alive: wake-ups are rare. Connection failures throw SyncRequestError. */
async function postDirect(
  client: KubeClient,
  via: Extract<SyncVia, { kind: 'direct' }>,
  release: Release,
): Promise<{ code: number; message: string }> {
  const authorization = await bearerOf(client);
  const url = new URL(syncPath(release), via.url);
  const body = '{}';
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        agent: false,
        ...(via.caPem === undefined ? {} : { ca: via.caPem }),
        headers: {
          Authorization: authorization,
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            message: statusMessage(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        res.on('error', (err) =>
          reject(new SyncRequestError(`POST ${url.href}: ${message(err)}`, res.statusCode, err)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', (err) =>
      reject(new SyncRequestError(`POST ${url.href}: ${message(err)}`, undefined, err)),
    );
    req.end(body);
  });
}

/** The kubeconfig's `Authorization` header (token, token file, exec plugin …), asked for on every call so refreshed tokens are used. */
async function bearerOf(client: KubeClient): Promise<string> {
  const opts: { headers?: Record<string, string> } = { headers: {} };
  await client.kubeConfig.applyToHTTPSOptions(opts);
  const auth = opts.headers?.Authorization;
  if (auth === undefined || !/^Bearer /i.test(auth)) {
    throw new SyncRequestError(
      'the kubeconfig has no bearer token: POST /sync straight to --sync-api-url needs one (client certificates are not accepted there); use the aggregated path instead',
      undefined,
    );
  }
  return auth;
}

/** The `message` of a metav1.Status body, else the text itself (shortened). */
function statusMessage(text: string): string {
  try {
    const s = JSON.parse(text) as { message?: unknown };
    if (typeof s.message === 'string') return s.message;
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 500);
}

const message = (err: unknown): string => errorMessage(err);
