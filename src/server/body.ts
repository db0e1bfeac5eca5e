// Validation of the POST /sync body: strict JSON (unknown fields and wrong types are errors that name
// the field), so a typo like {"aprove": true} fails loudly instead of silently syncing without approval.
import { errorMessage } from '../lib/errors.ts';
import { type ApiError, apiError, type ErrorCause } from './status.ts';

export interface SyncRequest {
  readonly force: boolean;
  readonly approve: boolean;
}

export type BodyResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ApiError };

const SYNC_FIELDS = ['force', 'approve'] as const;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** An empty body means `{}` (the observer's wake-ups send nothing else). */
export function parseSyncBody(text: string): BodyResult<SyncRequest> {
  if (text.trim() === '') return { ok: true, value: { force: false, approve: false } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: apiError(400, `request body is not valid JSON: ${errorMessage(err)}`) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      error: apiError(400, `request body must be a JSON object {force?, approve?}, got ${typeName(parsed)}`),
    };
  }
  const obj = parsed as Record<string, unknown>;
  const causes: ErrorCause[] = [];
  for (const key of Object.keys(obj)) {
    if (!(SYNC_FIELDS as readonly string[]).includes(key)) {
      causes.push({
        field: key,
        reason: 'FieldValueNotSupported',
        message: `unknown field ${JSON.stringify(key)} (known: ${SYNC_FIELDS.join(', ')})`,
      });
    }
  }
  for (const key of SYNC_FIELDS) {
    const v = obj[key];
    if (v !== undefined && typeof v !== 'boolean') {
      causes.push({
        field: key,
        reason: 'FieldValueTypeInvalid',
        message: `field ${JSON.stringify(key)} must be a boolean, got ${typeName(v)}`,
      });
    }
  }
  if (causes.length > 0) {
    return {
      ok: false,
      error: apiError(400, `invalid sync request: ${causes.map((c) => c.message).join('; ')}`, { causes }),
    };
  }
  return { ok: true, value: { force: obj.force === true, approve: obj.approve === true } };
}
