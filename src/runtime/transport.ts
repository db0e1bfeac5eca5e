// The runtime's view of the API: positional JSON requests and watch streams for the informers and
// the lease elector, sent over src/kube's transport (the one HTTP client, with pooled connections).
// Kept as a thin adapter so the harness does not need the kind/discovery layer of KubeClient.
import type { KubeConfig } from '@kubernetes/client-node';
import { isGone, KubeApiError } from '../kube/errors.ts';
import { KubeTransport, type Method, type RawRequest, type WatchEvent } from '../kube/transport.ts';

export type { WatchEvent };
/** One error type for every API failure: src/kube's KubeApiError (the old name kept for callers). */
export { isGone, KubeApiError as ApiError };

export class Transport {
  readonly kube: KubeTransport;

  constructor(kc: KubeConfig | KubeTransport) {
    this.kube = kc instanceof KubeTransport ? kc : KubeTransport.for(kc);
  }

  /** One JSON request (PATCH: a JSON merge patch); a non-2xx answer throws KubeApiError. */
  request<T>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    contentType: string = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
  ): Promise<T> {
    return this.kube.request<T>({
      method: method as Method,
      path,
      ...(body === undefined ? {} : { body, contentType: contentType as RawRequest['contentType'] }),
      ...(signal === undefined ? {} : { signal }),
    });
  }

  /**
   * Streams a watch until the server ends it (resolves) or it fails (rejects); an ERROR event
   * rejects with its Status as a KubeApiError. idleMs aborts a stream silent for that long.
   */
  watch(path: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal, idleMs: number): Promise<void> {
    return this.kube.watch({ path, signal, idleMs }, onEvent);
  }
}
