// Which schema a custom resource of a render is checked against (docs/design.md#reconcile-order): the
// openAPIV3Schema of the served version its apiVersion names, in a CustomResourceDefinition of the same
// render. Only apiextensions.k8s.io/v1 CRDs: the render's CRD is what will be live once applied.

/** A schema node as a CRD writes it: user input, so every keyword is read with its type checked. */
export type SchemaNode = { readonly [keyword: string]: unknown };

export interface CrdSchema {
  /** The CRD's metadata.name, for the message. */
  readonly crd: string;
  readonly schema: SchemaNode;
  /** The version has the status subresource: a create drops `status`, so it is not checked. */
  readonly statusSubresource: boolean;
}

/** The objects the index is built from and checked: apiVersion, kind, metadata are all it reads. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const keyOf = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/** "group/version/kind" of each served version of the render's CRDs → its schema. */
export function crdSchemas(objects: readonly Manifest[]): ReadonlyMap<string, CrdSchema> {
  const out = new Map<string, CrdSchema>();
  for (const o of objects) {
    if (o.apiVersion !== 'apiextensions.k8s.io/v1' || o.kind !== 'CustomResourceDefinition') continue;
    const spec = (o as { spec?: unknown }).spec;
    if (!isRecord(spec) || typeof spec.group !== 'string' || !isRecord(spec.names)) continue;
    const kind = spec.names.kind;
    if (typeof kind !== 'string' || !Array.isArray(spec.versions)) continue;
    for (const v of spec.versions as unknown[]) {
      if (!isRecord(v) || v.served !== true || typeof v.name !== 'string') continue;
      const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
      if (!isRecord(schema)) continue;
      const statusSubresource = isRecord(v.subresources) && v.subresources.status !== undefined;
      out.set(keyOf(spec.group, v.name, kind), { crd: o.metadata.name, schema, statusSubresource });
    }
  }
  return out;
}

/** The schema `obj` is checked against, or undefined when no CRD of the render serves its kind. */
export function schemaOf(index: ReadonlyMap<string, CrdSchema>, obj: Manifest): CrdSchema | undefined {
  const slash = obj.apiVersion.lastIndexOf('/');
  if (slash < 0) return undefined;
  return index.get(keyOf(obj.apiVersion.slice(0, slash), obj.apiVersion.slice(slash + 1), obj.kind));
}
