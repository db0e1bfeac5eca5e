// Errors of the HTTP API as Kubernetes `Status` objects, so kubectl and client libraries print the
// message the same way they print the apiserver's own failures.
import { REASON_BY_CODE } from '../kube/errors.ts';

export type ErrorCode = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 500 | 503;

export interface ErrorCause {
  readonly field?: string;
  readonly reason?: string;
  readonly message: string;
}

/** One failed request: what the client gets back. */
export interface ApiError {
  readonly code: ErrorCode;
  readonly reason: string;
  readonly message: string;
  readonly causes?: readonly ErrorCause[];
  /** Methods the path accepts, for the Allow header of a 405. */
  readonly allow?: readonly string[];
}

/** Each code's reason as the apiserver names it. */
const REASONS: Readonly<Record<ErrorCode, string>> = REASON_BY_CODE;

export function apiError(
  code: ErrorCode,
  message: string,
  extra: Pick<ApiError, 'causes' | 'allow'> = {},
): ApiError {
  return { code, reason: REASONS[code], message, ...extra };
}

/** The metav1.Status body of an error. */
export function statusBody(err: ApiError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: err.message,
    reason: err.reason,
    code: err.code,
  };
  if (err.causes !== undefined && err.causes.length > 0) {
    body.details = {
      causes: err.causes.map((c) => ({
        reason: c.reason ?? 'FieldValueInvalid',
        message: c.message,
        ...(c.field === undefined ? {} : { field: c.field }),
      })),
    };
  }
  return body;
}

export function isApiError(x: unknown): x is ApiError {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as ApiError).code === 'number' &&
    typeof (x as ApiError).message === 'string' &&
    typeof (x as ApiError).reason === 'string'
  );
}
