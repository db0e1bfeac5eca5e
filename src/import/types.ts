// What `convoy import` produces: Releases, and for each object it read, what it could not carry over.
// Pure data; the converters (argo.ts, flux.ts) never throw on odd input — a field they cannot map is a
// note, so a user migrating twenty Applications sees every gap at once.
import { API_VERSION } from '../api/constants.ts';
import type { ReleaseSpec } from '../api/types.ts';

/** A Release as import writes it: apiVersion, kind, metadata and spec, no status. */
export interface ImportedRelease {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: 'Release';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec: ReleaseSpec;
}

/** One gap: the object (`Kind namespace/name`), the field, and what to do about it. */
export interface ImportNote {
  readonly object: string;
  readonly field: string;
  readonly message: string;
}

/** What importing one document gives: its Release where it maps, and notes on what did not. */
export interface DocImport {
  readonly release?: ImportedRelease;
  readonly notes: readonly ImportNote[];
}

export interface ImportOptions {
  /**
   * Namespace of every Release (default: an Application's destination namespace, a Flux object's own;
   * sources are still looked up in their own namespaces).
   */
  readonly namespace?: string;
}

export interface ImportResult {
  readonly releases: readonly ImportedRelease[];
  readonly notes: readonly ImportNote[];
}

/** A manifest as parsed from YAML: anything, read defensively. */
export type Doc = Readonly<Record<string, unknown>>;

/** A converter's spec while it fills it in; release() adds the health rules. */
export type MutableSpec = { -readonly [K in keyof ReleaseSpec]: ReleaseSpec[K] };

export type Note = (field: string, message: string) => void;

/** The Release of a converted object, assessing health as every imported one does (IMPORTED_HEALTH). */
export function release(name: string, namespace: string, spec: MutableSpec): ImportedRelease {
  const { source, ...rest } = spec;
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace },
    spec: { source, healthAssessment: IMPORTED_HEALTH, ...rest },
  };
}

/** What every converter starts from: notes about this object, its metadata, spec and name (a missing one noted). */
export function beginImport(d: Doc) {
  const object = describeDoc(d);
  const notes: ImportNote[] = [];
  const note: Note = (field, message) => notes.push({ object, field, message });
  const meta = asRecord(d.metadata);
  const name = str(meta.name);
  if (name === undefined) note('metadata.name', 'missing; nothing imported');
  return { notes, note, meta, spec: asRecord(d.spec), name };
}

/** The `Kind namespace/name` of a manifest, for notes. */
export function describeDoc(d: Doc): string {
  const m = asRecord(d.metadata);
  const ns = str(m.namespace);
  return `${str(d.kind) ?? '?'} ${ns === undefined ? '' : `${ns}/`}${str(m.name) ?? '?'}`;
}

export function asRecord(v: unknown): Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function list(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The group of an apiVersion ("argoproj.io/v1alpha1" → "argoproj.io"). */
export function groupOf(apiVersion: unknown): string {
  const s = typeof apiVersion === 'string' ? apiVersion : '';
  const i = s.indexOf('/');
  return i < 0 ? '' : s.slice(0, i);
}

/**
 * Health rules every imported Release assesses with: the default rules and the shipped library, as
 * Argo CD and Flux always judge health. A rollback needs failurePolicy on top, which import sets only
 * where the source asked for remediation.
 */
export const IMPORTED_HEALTH: NonNullable<ReleaseSpec['healthAssessment']> = {
  globalRuleSetSelector: {
    matchExpressions: [{ key: 'convoy.kumodo.io/rules', operator: 'In', values: ['default', 'library'] }],
  },
};
