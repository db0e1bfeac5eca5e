// Schema builders for the parts of a Kubernetes structural schema that TypeBox has no word for
// (string enums, string maps, preserve-unknown-fields, CEL rules, list-maps), so that every schema in
// src/api/schema is one TypeBox value whose Static type is the TypeScript type.
import { type TSchema, Type } from 'typebox';
import { DURATION_PATTERN } from '../duration.ts';

/** One `x-kubernetes-validations` rule. */
export interface CelRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly fieldPath?: string;
  readonly reason?:
    | 'FieldValueInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueRequired'
    | 'FieldValueDuplicate';
}

/** Schema options Kubernetes adds to JSON Schema. */
export interface K8sOptions {
  readonly description?: string;
  readonly 'x-kubernetes-validations'?: readonly CelRule[];
  readonly [keyword: string]: unknown;
}

/** A string limited to the given values; the Static type is their union. */
export function StringEnum<const T extends readonly string[]>(values: T, options: K8sOptions = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A Go duration string ("5m", "1h30m", "0"). */
export function Duration(options: K8sOptions = {}) {
  return Type.String({ pattern: DURATION_PATTERN, maxLength: 64, ...options });
}

/**
 * A Go duration that must be more than zero (a deadline, a timeout): "0", "0s" and "0.0m" are refused by
 * the API server with a message naming the field. Once DURATION_PATTERN holds, a non-zero digit is
 * exactly a positive duration.
 */
export function PositiveDuration(options: K8sOptions = {}) {
  return Duration({
    ...options,
    'x-kubernetes-validations': [
      ...(options['x-kubernetes-validations'] ?? []),
      { rule: "self.matches('[1-9]')", message: 'must be a duration greater than 0, e.g. "30s" or "5m"' },
    ],
  });
}

/** An RFC 3339 time as Kubernetes writes it (metav1.Time). */
export function Time(options: K8sOptions = {}) {
  return Type.String({ format: 'date-time', ...options });
}

/** A map of string to string (labels, substitutions). */
export function StringMap(options: K8sOptions = {}) {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    ...options,
  });
}

/** Arbitrary JSON object kept as is (Helm values). */
export function FreeObject(options: K8sOptions = {}) {
  return Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    ...options,
  });
}

/** An associative list keyed by `keys`, so different SSA field managers can own fields of one item. */
export function ListMap<T extends TSchema>(item: T, keys: readonly string[], options: K8sOptions = {}) {
  return Type.Array(item, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [...keys],
    ...options,
  });
}

/** A list treated as a set of scalars by SSA. */
export function ListSet<T extends TSchema>(item: T, options: K8sOptions = {}) {
  return Type.Array(item, { 'x-kubernetes-list-type': 'set', ...options });
}

/** DNS-1123 subdomain / label patterns used for object names. */
export const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** The name of an object in the same namespace. */
export function ObjectName(options: K8sOptions = {}) {
  return Type.String({ minLength: 1, maxLength: 253, pattern: DNS1123_SUBDOMAIN, ...options });
}

/** A render reference: "sha256:" + 64 hex digits. */
export const RENDER_REF_PATTERN = '^sha256:[0-9a-f]{64}$';
export function RenderRef(options: K8sOptions = {}) {
  return Type.String({ pattern: RENDER_REF_PATTERN, maxLength: 71, ...options });
}
