// The dry run of objects whose kind a CRD of the same render defines (docs/design.md#reconcile-order):
// first checked here against the CRDs this render creates (./crd-schema-check.ts), before anything is
// applied; then, as the API can check a custom resource only once its CRD is installed, those CRDs are
// applied —
// noted pending before, as every apply is — and the objects the first dry run skipped are dry-run then.
// When one is refused, the CRDs this render created are deleted again and leave the inventory: nothing
// of a render that fails its dry run stays live (a CRD and a ConfigMap of it were, with the custom
// resource refused).

import { groupOf } from '../../../render/keys.ts';
import type { Obj } from '../../../render/types.ts';
import { inventoryEntriesForWave } from '../decide/sync/index.ts';
import { applyWaveOf, servedKind } from '../decide/sync/waves.ts';
import { checkAgainstCrds, type SchemaRefusal } from './crd-schema-check.ts';
import { applyAll, type DeployOptions, dryRunAll, ObjectApplyError } from './deployer.ts';
import type { InventoryWriter } from './inventory-writer.ts';
import type { Target } from './target.ts';

export interface CrdFirstInput {
  readonly target: Pick<Target, 'client' | 'readClient'>;
  readonly writer: InventoryWriter;
  /** Every object of the render. */
  readonly objects: readonly Obj[];
  /** The objects the first dry run could not check (their CRD or Namespace not installed yet). */
  readonly skipped: readonly Obj[];
  readonly renderRef: string;
  readonly labels: Pick<DeployOptions, 'releaseLabel' | 'releaseUid'>;
}

/**
 * checked: every skipped object passed, but those still skipped (a Namespace of the render not created
 * yet), with why. invalid: the local check refused one against its CRD, and nothing was applied.
 * refused: the API refused one, and the CRDs this render created are gone again.
 */
export type CrdFirstResult =
  | { readonly kind: 'checked'; readonly skipped: readonly string[] }
  | { readonly kind: 'invalid'; readonly refusal: SchemaRefusal }
  | { readonly kind: 'refused'; readonly error: unknown };

/** The CRDs of the render that define a kind of `skipped`. */
export function crdsFor(objects: readonly Obj[], skipped: readonly Obj[]): Obj[] {
  const wanted = new Set(skipped.map((o) => `${groupOf(o.apiVersion)}/${o.kind}`));
  return objects.filter((o) => {
    const k = servedKind(o);
    return k !== undefined && wanted.has(`${k.group}/${k.kind}`);
  });
}

/** Throws what fails on the way (reading, noting, applying the CRDs): a retry may fix it. */
export async function dryRunWithCrds(input: CrdFirstInput): Promise<CrdFirstResult> {
  const { target, writer, objects, skipped, renderRef } = input;
  const crds = crdsFor(objects, skipped);
  if (crds.length === 0) return { kind: 'checked', skipped: [] };
  const created: Obj[] = [];
  for (const crd of crds) {
    const name = crd.metadata.name;
    if ((await target.readClient.get({ apiVersion: crd.apiVersion, kind: crd.kind, name })) === undefined)
      created.push(crd);
  }
  const invalid = await checkAgainstCrds(created, skipped);
  if (invalid !== undefined) return { kind: 'invalid', refusal: invalid };
  const waveOf = applyWaveOf(objects);
  const entryOf = (c: Obj) => inventoryEntriesForWave([c], renderRef, waveOf(c));
  // Noted before the apply: a crash from here on leaves them tracked (their wave records them, or the
  // next sync settles them).
  await writer.notePending(crds.flatMap(entryOf));
  await applyAll(target.client, crds, input.labels);
  let refusal: unknown;
  try {
    const dry = await dryRunAll(target.client, skipped, input.labels, objects);
    return { kind: 'checked', skipped: dry.skipped };
  } catch (err) {
    if (!(err instanceof ObjectApplyError)) throw err;
    refusal = err;
  }
  for (const crd of created)
    await target.client.delete({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
  // Gone again, so they leave the inventory's pending notes; a CRD that was live before stays noted
  // (its wave records it, or the next sync settles it).
  await writer.record([], created.flatMap(entryOf));
  return { kind: 'refused', error: refusal };
}
