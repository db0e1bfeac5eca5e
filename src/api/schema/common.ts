// Schemas shared by several kinds: metav1.Condition, label selectors, secret references, ObjectMeta typing.
import { type Static, Type } from 'typebox';
import { type K8sOptions, ListMap, ObjectName, StringEnum, StringMap, Time } from './k8s.ts';

/** metav1.Condition, as in every Kubernetes status. */
export const ConditionSchema = Type.Object({
  type: Type.String({
    minLength: 1,
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    description: 'Type of the condition, e.g. Ready.',
  }),
  status: StringEnum(['True', 'False', 'Unknown']),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  lastTransitionTime: Time({ description: 'When status last changed.' }),
  reason: Type.String({
    minLength: 1,
    maxLength: 1024,
    pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    description: 'CamelCase reason of the last transition.',
  }),
  message: Type.String({ maxLength: 32768, description: 'Human-readable details.' }),
});
export type Condition = Static<typeof ConditionSchema>;
export type ConditionStatus = Condition['status'];

export function Conditions() {
  return ListMap(ConditionSchema, ['type'], { maxItems: 16, description: 'Conditions, one per type.' });
}

/** observedGeneration and conditions: how every convoy kind's status begins (spread into its schema). */
export function StatusHead() {
  return {
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
    conditions: Type.Optional(Conditions()),
  };
}

export const LabelSelectorRequirementSchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 317 }),
  operator: StringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64 })),
});

/** metav1.LabelSelector. An empty selector ({}) selects everything. */
export function LabelSelector(options: K8sOptions = {}) {
  return Type.Object(
    {
      matchLabels: Type.Optional(StringMap({ maxProperties: 64 })),
      matchExpressions: Type.Optional(Type.Array(LabelSelectorRequirementSchema, { maxItems: 32 })),
    },
    { 'x-kubernetes-map-type': 'atomic', ...options },
  );
}
export const LabelSelectorSchema = LabelSelector();
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** A Secret in the namespace of the referring object. */
export const LocalSecretRefSchema = Type.Object({
  name: ObjectName({ description: 'Name of the Secret in the same namespace.' }),
});
export type LocalSecretRef = Static<typeof LocalSecretRefSchema>;

/** One key of a Secret in the namespace of the referring object. */
export const SecretKeyRefSchema = Type.Object({
  name: ObjectName({ description: 'Name of the Secret in the same namespace.' }),
  key: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[-._a-zA-Z0-9]+$',
      default: 'kubeconfig',
      description: 'Key of the Secret that holds the value (default "kubeconfig").',
    }),
  ),
});
export type SecretKeyRef = Static<typeof SecretKeyRefSchema>;

/**
 * The parts of metav1.ObjectMeta convoy reads or writes, as the API sends them (JSON: times are strings).
 * TypeScript only: the apiserver validates metadata itself, so CRD schemas leave it out.
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** What every Kubernetes object has; typed objects (Release, ...) satisfy it. */
export interface ObjectHeader {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject extends ObjectHeader {
  [field: string]: unknown;
}
