// Turns a TypeBox schema into the OpenAPI v3 subset the apiserver accepts in a CRD (a structural schema),
// and refuses anything it would reject or silently ignore, so a bad schema fails `npm test`, not a deploy.

export type JsonSchema = { readonly [keyword: string]: unknown };

/** Keywords of apiextensions.k8s.io/v1 JSONSchemaProps that convoy uses. */
const ALLOWED = new Set([
  'type',
  'format',
  'description',
  'default',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'enum',
  'required',
  'items',
  'properties',
  'additionalProperties',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

export class SchemaError extends Error {
  override readonly name = 'SchemaError';
}

/**
 * Returns a plain JSON copy of `schema` fit for `openAPIV3Schema`: TypeBox's symbol and `~` keys dropped,
 * type and description first. Throws SchemaError naming the path of the first non-structural part.
 */
export function toStructural(schema: unknown, path = '<root>'): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new SchemaError(`${path}: a schema must be an object`);
  }
  const src = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // type and description first: the generated YAML reads top-down like hand-written CRDs
  const keys = Object.keys(src).sort((a, b) => rank(a) - rank(b));
  for (const key of keys) {
    if (key.startsWith('~')) continue;
    const value = src[key];
    if (!ALLOWED.has(key))
      throw new SchemaError(`${path}: keyword ${JSON.stringify(key)} is not allowed in a CRD`);
    switch (key) {
      case 'properties': {
        const props: Record<string, JsonSchema> = {};
        for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
          props[name] = toStructural(sub, `${path}.${name}`);
        }
        out[key] = props;
        break;
      }
      case 'items':
        out[key] = toStructural(value, `${path}[]`);
        break;
      case 'additionalProperties':
        if (typeof value === 'boolean') {
          throw new SchemaError(
            `${path}: additionalProperties must be a schema (unknown fields are pruned anyway)`,
          );
        }
        out[key] = toStructural(value, `${path}.*`);
        break;
      default:
        out[key] = structuredClone(value);
    }
  }
  checkNode(out, path);
  return out;
}

function rank(key: string): number {
  return key === 'type' ? 0 : key === 'description' ? 1 : 2;
}

function checkNode(node: Record<string, unknown>, path: string): void {
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (node.type === undefined && !preserve && !intOrString) {
    throw new SchemaError(`${path}: every node needs a type`);
  }
  if (node.properties !== undefined && node.additionalProperties !== undefined) {
    throw new SchemaError(`${path}: properties and additionalProperties are mutually exclusive`);
  }
  if (node.type === 'array' && node.items === undefined)
    throw new SchemaError(`${path}: an array needs items`);
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'map') {
    const keys = node['x-kubernetes-list-map-keys'];
    const item = node.items as { required?: string[]; properties?: Record<string, { default?: unknown }> };
    if (!Array.isArray(keys) || keys.length === 0) throw new SchemaError(`${path}: a list-map needs keys`);
    for (const key of keys as string[]) {
      const prop = item.properties?.[key];
      if (prop === undefined)
        throw new SchemaError(`${path}: list-map key ${key} is not a property of the items`);
      if (!item.required?.includes(key) && prop.default === undefined) {
        throw new SchemaError(`${path}: list-map key ${key} must be required or have a default`);
      }
    }
  }
  for (const rule of (node['x-kubernetes-validations'] ?? []) as { rule?: unknown; message?: unknown }[]) {
    if (typeof rule.rule !== 'string' || rule.rule === '')
      throw new SchemaError(`${path}: a validation needs a rule`);
    if (typeof rule.message !== 'string' || rule.message === '') {
      throw new SchemaError(
        `${path}: validation ${JSON.stringify(rule.rule)} needs a message users understand`,
      );
    }
  }
}
