// The local check of the custom resources whose CRD this render creates (docs/design.md#reconcile-order):
// each is checked against the render's CRD (src/crdschema) before that CRD is applied, so a render whose
// custom resource the API would refuse leaves nothing live, not even for the moment the server's dry run
// takes. Only kinds whose CRD is not live yet: such an object cannot exist, so the server judges a create
// (no transition rules, no ratcheting of unchanged fields). What the check leaves open, the server's dry
// run after the CRD is applied still catches (act/crd-first.ts).
import { crdSchemas } from '../../../crdschema/find.ts';
import { type RuleCache, validateObject } from '../../../crdschema/validate.ts';
import { describeKey, objectKey } from '../../../render/keys.ts';
import type { Obj } from '../../../render/types.ts';

/** What the check refused: the object, the CRD, the field path and why. */
export interface SchemaRefusal {
  readonly object: Obj;
  readonly crd: string;
  readonly path: string;
  readonly message: string;
}

/** The event loop is let go after this much wall time of checking. */
const sliceMs = 10;
/** Past this much wall time for the whole render, what is left goes to the server's dry run alone. */
const renderMs = 2000;

/** The first object of `objects` that a CRD of `crds` refuses, checked in render order; undefined if none. */
export async function checkAgainstCrds(
  crds: readonly Obj[],
  objects: readonly Obj[],
): Promise<SchemaRefusal | undefined> {
  const index = crdSchemas(crds);
  if (index.size === 0) return undefined;
  const rules: RuleCache = new Map();
  const start = performance.now();
  let slice = start;
  for (const object of objects) {
    const now = performance.now();
    if (now - start > renderMs) return undefined;
    if (now - slice > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const v = validateObject(index, object, rules);
    if (v.kind === 'invalid') return { object, crd: v.crd, path: v.path, message: v.message };
  }
  return undefined;
}

/** "Gadget.example.com ns/g: spec.size: must be at most 10, is 99 (CustomResourceDefinition …)". */
export function describeRefusal(r: SchemaRefusal): string {
  const at = r.path === '' ? '' : `${r.path}: `;
  return `${describeKey(objectKey(r.object))}: ${at}${r.message} (checked against CustomResourceDefinition ${r.crd} of this render before anything was applied)`;
}
