// Kubernetes API failures as one typed error carrying the HTTP code, the Status reason, the API's own
// message and its field causes, so callers can name the object and the field in their conditions.
import type { ApiException } from '@kubernetes/client-node';

/** metav1.StatusReason values convoy reacts to; anything else is kept as the raw string. */
export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'BadRequest'
  | 'Gone'
  | 'Expired'
  | 'Timeout'
  | 'ServerTimeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Unknown'
  | (string & {});

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  /** e.g. "spec.source" */
  readonly field?: string;
}

/** What identifies the request that failed, for messages. */
export interface RequestInfo {
  readonly method: string;
  readonly path: string;
}

/** Where the Status came from: an HTTP answer, or an ERROR event inside a 200 watch stream. */
export type ErrorOrigin = 'response' | 'watch-event';

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly code: number;
  readonly reason: StatusReason;
  /** The API's message, e.g. `Release.convoy.kumodo.io "web" is invalid: spec.source: Required value`. */
  readonly apiMessage: string;
  readonly causes: readonly StatusCause[];
  readonly request: RequestInfo | undefined;
  readonly details: { readonly name?: string; readonly group?: string; readonly kind?: string };
  readonly origin: ErrorOrigin;
  constructor(
    code: number,
    reason: StatusReason,
    apiMessage: string,
    causes: readonly StatusCause[],
    request: RequestInfo | undefined,
    details: { readonly name?: string; readonly group?: string; readonly kind?: string } = {},
    origin: ErrorOrigin = 'response',
  ) {
    super(request === undefined ? apiMessage : `${request.method} ${request.path}: ${apiMessage}`);
    this.code = code;
    this.reason = reason;
    this.apiMessage = apiMessage;
    this.causes = causes;
    this.request = request;
    this.details = details;
    this.origin = origin;
  }
}

/**
 * The Status reason the apiserver gives each HTTP code; the reason of a failure whose body names none,
 * and the one convoy's HTTP API gives its own errors so clients read them the same way.
 */
export const REASON_BY_CODE = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
} as const satisfies Readonly<Record<number, StatusReason>>;
const reasonByCode: Readonly<Record<number, StatusReason>> = REASON_BY_CODE;

interface StatusBody {
  kind?: unknown;
  message?: unknown;
  reason?: unknown;
  code?: unknown;
  details?: { name?: unknown; group?: unknown; kind?: unknown; causes?: unknown };
}

function parseBody(body: unknown): StatusBody | undefined {
  if (typeof body === 'string') {
    try {
      return parseBody(JSON.parse(body));
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusBody) : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Builds a KubeApiError from an HTTP code and a response body (a metav1.Status as JSON or text). */
export function fromResponse(
  code: number,
  body: unknown,
  request?: RequestInfo,
  origin: ErrorOrigin = 'response',
): KubeApiError {
  const status = parseBody(body);
  const reason = str(status?.reason) ?? reasonByCode[code] ?? 'Unknown';
  const rawText = typeof body === 'string' ? body.trim().slice(0, 2048) : '';
  const message = str(status?.message) ?? (rawText !== '' ? rawText : `HTTP ${code}`);
  const rawCauses = Array.isArray(status?.details?.causes) ? (status.details.causes as unknown[]) : [];
  const causes = rawCauses.map((c) => {
    const o = (c ?? {}) as Record<string, unknown>;
    return { reason: str(o.reason), message: str(o.message), field: str(o.field) };
  });
  const details = {
    name: str(status?.details?.name),
    group: str(status?.details?.group),
    kind: str(status?.details?.kind),
  };
  return new KubeApiError(code, reason, message, causes, request, details, origin);
}

/** Any error from a typed client-node API, our raw client, or the network, as a KubeApiError or as is. */
export function toKubeError(err: unknown, request?: RequestInfo): unknown {
  if (err instanceof KubeApiError) return err;
  if (isApiException(err)) return fromResponse(err.code, err.body, request);
  return err;
}

/**
 * client-node's ApiException, recognised by shape: importing the class would load all of client-node
 * into every process that only formats errors (the CLI's start-up budget).
 */
function isApiException(err: unknown): err is ApiException<unknown> {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown; headers?: unknown };
  return typeof e.code === 'number' && 'body' in e && typeof e.headers === 'object';
}

export function isKubeError(err: unknown, reason?: StatusReason): err is KubeApiError {
  return err instanceof KubeApiError && (reason === undefined || err.reason === reason);
}
export const isNotFound = (err: unknown): boolean => isKubeError(err) && err.code === 404;
export const isConflict = (err: unknown): boolean => isKubeError(err) && err.code === 409;
export const isAlreadyExists = (err: unknown): boolean => isKubeError(err, 'AlreadyExists');
export const isInvalid = (err: unknown): boolean => isKubeError(err) && err.code === 422;
/** 410: the resourceVersion (or continue token) asked for is older than the server keeps. */
export const isGone = (err: unknown): err is KubeApiError => isKubeError(err) && err.code === 410;

/** "field: message" of every cause, for a condition message. */
export function describeCauses(err: KubeApiError): string {
  if (err.causes.length === 0) return err.apiMessage;
  return err.causes
    .map((c) => (c.field === undefined ? (c.message ?? '') : `${c.field}: ${c.message ?? c.reason ?? ''}`))
    .join('; ');
}
