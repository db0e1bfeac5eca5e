// The Event recorder: Events are handed over without waiting and sent by one background loop, in order,
// retried with exponential backoff while the API server cannot take them (down, restarting, throttling),
// so an Event recorded across an apiserver restart arrives afterwards. The queue is bounded: an Event
// that finds it full, or that the server refuses for good (the namespace is gone, forbidden, invalid),
// or that ran out of attempts is dropped and counted (onDropped) — a recorder can never hold memory or
// a reconcile hostage. An Event with a fixed metadata.name (rather than generateName) is idempotent: a
// 409 for it means an earlier attempt or an earlier process already recorded it, which counts as sent.
// eventAbout builds the Event object itself, for any reporting component.
import { isKubeError } from './errors.ts';

export type DropReason = 'queueFull' | 'refused' | 'attempts';

/** What the recorder needs of a client: one create. */
export interface EventWriter {
  create(obj: never): Promise<unknown>;
}

export interface EventRecorderOptions {
  /** Events waiting to be sent (default 1000). */
  readonly maxQueued?: number;
  /** Attempts per Event before it is dropped (default 12: about five minutes at the default delays). */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onDropped?: (reason: DropReason, error: unknown) => void;
  readonly onRecorded?: () => void;
}

export type SendDecision =
  | { readonly kind: 'retry'; readonly afterMs: number }
  | { readonly kind: 'drop'; readonly reason: DropReason }
  /** A named Event that already exists: recorded before (by an earlier attempt or process). */
  | { readonly kind: 'recorded' };

/**
 * After the attempt-th failed send: a 409 for an Event with a fixed name is already recorded; retry when a
 * later try may succeed — no answer (connection refused or reset, a timeout), 429, 5xx, or 409 (a
 * generated name that collided) — else drop. Pure.
 */
export function afterFailedSend(
  error: unknown,
  attempt: number,
  opts: { readonly maxAttempts: number; readonly baseDelayMs: number; readonly maxDelayMs: number },
  named = false,
): SendDecision {
  const code = isKubeError(error) ? error.code : undefined;
  if (named && code === 409) return { kind: 'recorded' };
  const retriable = code === undefined || code === 429 || code === 409 || code >= 500;
  if (!retriable) return { kind: 'drop', reason: 'refused' };
  if (attempt >= opts.maxAttempts) return { kind: 'drop', reason: 'attempts' };
  return { kind: 'retry', afterMs: Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1)) };
}

export class EventRecorder {
  readonly #client: EventWriter;
  readonly #opts: Required<Omit<EventRecorderOptions, 'onDropped' | 'onRecorded'>> & EventRecorderOptions;
  readonly #queue: { readonly event: object; readonly onSent: (() => void) | undefined }[] = [];
  #sending: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #stopped = false;

  constructor(client: EventWriter, opts: EventRecorderOptions = {}) {
    this.#client = client;
    this.#opts = {
      maxQueued: 1000,
      maxAttempts: 12,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      ...opts,
    };
  }

  /**
   * Queues an Event (a core/v1 Event object); never waits, never throws. `onSent` runs once the API server
   * holds it (created, or a named one found already there) — never when it is dropped.
   */
  record(event: object, onSent?: () => void): void {
    if (this.#stopped || this.#queue.length >= this.#opts.maxQueued) {
      this.#opts.onDropped?.('queueFull', undefined);
      return;
    }
    this.#queue.push({ event, onSent });
    this.#sending ??= this.#loop().finally(() => {
      this.#sending = undefined;
    });
  }

  /** Events not yet sent. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves once every queued Event is sent or dropped (or after timeoutMs). */
  async flush(timeoutMs = 10_000): Promise<void> {
    const sending = this.#sending;
    if (sending === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([sending, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Stops retrying: what is still queued is dropped at the next attempt (shutdown). */
  stop(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  async #loop(): Promise<void> {
    for (let item = this.#queue[0]; item !== undefined; item = this.#queue[0]) {
      const { event, onSent } = item;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.#client.create(event as never);
          this.#opts.onRecorded?.();
          onSent?.();
          break;
        } catch (error) {
          const d = this.#stopped
            ? ({ kind: 'drop', reason: 'attempts' } as const)
            : afterFailedSend(error, attempt, this.#opts, hasFixedName(event));
          if (d.kind === 'recorded') {
            this.#opts.onRecorded?.();
            onSent?.();
            break;
          }
          if (d.kind === 'drop') {
            this.#opts.onDropped?.(d.reason, error);
            break;
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, d.afterMs);
            // An idle retry must not keep a process alive that is otherwise done.
            t.unref();
            this.#wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          this.#wake = undefined;
        }
      }
      this.#queue.shift();
    }
  }
}

function hasFixedName(event: object): boolean {
  const name = (event as { metadata?: { name?: unknown } }).metadata?.name;
  return typeof name === 'string' && name !== '';
}

/** The object an Event is about (its involvedObject). */
export interface Involved {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
}

/**
 * A core/v1 Event about `about`, reported by `component`: with `name` fixed (idempotent: a second create
 * is a 409, counted as recorded), else a generated name. The message is cut to the API's 1 KiB. Pure.
 */
export function eventAbout(
  about: Involved,
  e: {
    readonly type: 'Normal' | 'Warning';
    readonly reason: string;
    readonly message: string;
    readonly name?: string;
  },
  component: string,
  now: number,
): Record<string, unknown> {
  const ts = new Date(now).toISOString();
  const { name, namespace, uid, resourceVersion } = about.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: e.name === undefined ? { generateName: `${name}.`, namespace } : { name: e.name, namespace },
    involvedObject: { apiVersion: about.apiVersion, kind: about.kind, name, namespace, uid, resourceVersion },
    type: e.type,
    reason: e.reason,
    message: e.message.slice(0, 1024),
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
  };
}

/** The fields of a core/v1 Event that convoy reads (`convoy events`, the observer's hook warnings). */
export interface KubeEvent {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly creationTimestamp?: string;
  };
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly firstTimestamp?: string | null;
  readonly lastTimestamp?: string | null;
  readonly eventTime?: string | null;
  readonly series?: { readonly lastObservedTime?: string; readonly count?: number } | null;
  readonly involvedObject?: {
    readonly kind?: string;
    readonly name?: string;
    readonly namespace?: string;
    readonly apiVersion?: string;
  };
}

/** When an Event last happened: series, lastTimestamp, eventTime, then creation. */
export function lastSeen(e: KubeEvent): string {
  return (
    e.series?.lastObservedTime ??
    e.lastTimestamp ??
    e.eventTime ??
    e.firstTimestamp ??
    e.metadata?.creationTimestamp ??
    ''
  );
}
