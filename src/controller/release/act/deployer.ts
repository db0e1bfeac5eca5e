// The deployer: Server-Side Apply of render objects to a target cluster under the field manager
// `convoy` (force: convoy owns what it renders), each object labelled with its Release so orphans can
// always be found, and annotated with the Release's uid so only that Release ever prunes or adopts it (a
// label can be copied by anyone). Namespaces and CRDs of a group go first; a CRD is waited for until Established
// before anything after it is applied. Within a rank, at most DEPLOY_PARALLEL applies (or dry runs) run at
// once: a wave of many objects costs its slowest few round trips, not their sum. The dry run skips objects
// that cannot be checked yet because their CRD or Namespace is in the same render and not installed (like
// Argo CD's SkipDryRunOnMissingResource) and reports them as notes.
import { ANNOTATION_RELEASE_UID, FIELD_MANAGERS } from '../../../api/constants.ts';
import { applyObject } from '../../../kube/apply.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { isKubeError } from '../../../kube/errors.ts';
import { kindRank } from '../../../render/canonical.ts';
import { describeKey, groupOf, objectKey } from '../../../render/keys.ts';
import { labelled } from '../../../render/labelled.ts';
import type { Obj } from '../../../render/types.ts';
import { forEachBounded } from '../../../runtime/index.ts';

const CRD_GROUP = 'apiextensions.k8s.io';
/** Applies or dry runs of one rank in flight at once (DeployOptions.parallel overrides it). */
export const DEPLOY_PARALLEL = 8;

/**
 * Whether the live object was applied by the Release of `releaseUid`: its uid annotation says so AND
 * convoy's field manager set that annotation by Server-Side Apply (managedFields). Anyone who may
 * label or annotate an object can copy the annotation, but then their own manager owns it
 * (docs/design.md#tenancy-and-impersonation). Pure.
 */
export function appliedBy(live: Obj | undefined, releaseUid: string): boolean {
  if (releaseUid === '' || live?.metadata.annotations?.[ANNOTATION_RELEASE_UID] !== releaseUid) return false;
  const managed = live.metadata.managedFields;
  if (!Array.isArray(managed)) return false;
  return managed.some((m: ManagedFieldsEntry) => {
    if (m.manager !== FIELD_MANAGERS.deployer || m.operation !== 'Apply') return false;
    return m.fieldsV1?.['f:metadata']?.['f:annotations']?.[`f:${ANNOTATION_RELEASE_UID}`] !== undefined;
  });
}

type ManagedFieldsEntry = {
  readonly manager?: string;
  readonly operation?: string;
  readonly fieldsV1?: {
    readonly 'f:metadata'?: { readonly 'f:annotations'?: Readonly<Record<string, unknown>> };
  };
};

export function isCrd(obj: Obj): boolean {
  return groupOf(obj.apiVersion) === CRD_GROUP && obj.kind === 'CustomResourceDefinition';
}

/** Whether the render defines the CRD serving `obj`'s kind, or the Namespace `obj` lives in. */
export function definedInRender(obj: Obj, render: readonly Obj[]): boolean {
  const group = groupOf(obj.apiVersion);
  const ns = obj.metadata.namespace;
  return render.some((o) => {
    if (isCrd(o)) {
      const spec = (o as { spec?: { group?: string; names?: { kind?: string } } }).spec;
      return spec?.group === group && spec?.names?.kind === obj.kind;
    }
    return ns !== undefined && o.apiVersion === 'v1' && o.kind === 'Namespace' && o.metadata.name === ns;
  });
}

export class ObjectApplyError extends Error {
  override name = 'ObjectApplyError';
  readonly object: Obj;
  readonly httpStatus: number | undefined;
  constructor(object: Obj, cause: unknown) {
    const why = isKubeError(cause)
      ? cause.apiMessage
      : cause instanceof Error
        ? cause.message
        : String(cause);
    super(`${describeKey(objectKey(object))}: ${why}`, { cause });
    this.object = object;
    this.httpStatus = isKubeError(cause) ? cause.code : undefined;
  }
}

export interface DeployOptions {
  readonly releaseLabel: string;
  /** metadata.uid of the Release, stamped as ANNOTATION_RELEASE_UID. */
  readonly releaseUid?: string;
  /**
   * Told of each object the API accepted (so a failed wave can still record what it applied), with the
   * resourceVersion the apply returned.
   */
  readonly onApplied?: (obj: Obj, resourceVersion: string | undefined) => void;
  /** How many applies run at once for objects of the same rank (default DEPLOY_PARALLEL). */
  readonly parallel?: number;
  readonly crdTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Applies `objects` in order of rank (Namespaces, CRDs, the rest), each rank at most `parallel` at once,
 * and waits for the CRDs of a rank to be Established before the next rank. After a rejection no further
 * apply starts (those in flight finish, and onApplied hears of each one accepted); the ObjectApplyError
 * thrown is that of the earliest rejected object in `objects`' order, so the message does not depend on
 * timing.
 */
export async function applyAll(
  client: KubeClient,
  objects: readonly Obj[],
  opts: DeployOptions,
): Promise<void> {
  for (const group of byRank(objects)) {
    const failures = new Map<Obj, ObjectApplyError>();
    // The first failure starts no more applies; those in flight finish.
    await forEachBounded(group, opts.parallel ?? DEPLOY_PARALLEL, async (obj) => {
      let live: Obj;
      try {
        live = await applyObject(client, labelled(obj, opts.releaseLabel, opts.releaseUid), {
          fieldManager: FIELD_MANAGERS.deployer,
          force: true,
        });
      } catch (err) {
        failures.set(obj, new ObjectApplyError(obj, err));
        return 'stop';
      }
      const rv = live.metadata.resourceVersion;
      opts.onApplied?.(obj, typeof rv === 'string' ? rv : undefined);
      return undefined;
    });
    const first = earliest(objects, failures);
    if (first !== undefined) throw first;
    const crds = group.filter(isCrd);
    for (const crd of crds) await waitEstablished(client, crd.metadata.name, opts.crdTimeoutMs ?? 60_000);
  }
}

export interface DryRunResult {
  /** Objects not checked, with why. */
  readonly skipped: readonly string[];
  /** The same objects: their CRD or Namespace is in the render and not installed yet. */
  readonly skippedObjects: readonly Obj[];
}

/** Server-side dry run of every object; throws ObjectApplyError for the first one the API rejects. */
export async function dryRunAll(
  client: KubeClient,
  objects: readonly Obj[],
  opts: DeployOptions,
  /** The whole render, where a CRD or Namespace not yet installed may be defined (default: `objects`). */
  render: readonly Obj[] = objects,
): Promise<DryRunResult> {
  const skipped: string[] = [];
  const skippedObjects: Obj[] = [];
  const failures = new Map<Obj, ObjectApplyError>();
  await forEachBounded(objects, opts.parallel ?? DEPLOY_PARALLEL, async (obj) => {
    try {
      await applyObject(client, labelled(obj, opts.releaseLabel, opts.releaseUid), {
        fieldManager: FIELD_MANAGERS.deployer,
        force: true,
        dryRun: true,
      });
    } catch (err) {
      if (isKubeError(err) && err.code === 404 && definedInRender(obj, render)) {
        skipped.push(`${describeKey(objectKey(obj))}: not yet installed (${err.apiMessage})`);
        skippedObjects.push(obj);
        return undefined;
      }
      failures.set(obj, new ObjectApplyError(obj, err));
    }
    return undefined;
  });
  // Every object is checked, so the failure reported is always the same one for the same render.
  const first = earliest(objects, failures);
  if (first !== undefined) throw first;
  // In render order, whichever answered first.
  return { skipped, skippedObjects: objects.filter((o) => skippedObjects.includes(o)) };
}

/** The failure of the earliest object in `order`. */
function earliest(
  order: readonly Obj[],
  failures: ReadonlyMap<Obj, ObjectApplyError>,
): ObjectApplyError | undefined {
  if (failures.size === 0) return undefined;
  for (const o of order) {
    const f = failures.get(o);
    if (f !== undefined) return f;
  }
  return undefined;
}

function byRank(objects: readonly Obj[]): Obj[][] {
  const groups: Obj[][] = [];
  let rank: number | undefined;
  for (const obj of [...objects].sort((a, b) => Math.min(kindRank(a), 2) - Math.min(kindRank(b), 2))) {
    const r = Math.min(kindRank(obj), 2);
    if (r !== rank) groups.push([]);
    rank = r;
    groups[groups.length - 1]?.push(obj);
  }
  return groups;
}

type CrdStatus = { status?: { conditions?: { type: string; status: string; message?: string }[] } };

/** Polls the CRD until Established, at most `timeoutMs`; the error names it and its last condition. */
export async function waitEstablished(client: KubeClient, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.get<CrdStatus>({
      apiVersion: `${CRD_GROUP}/v1`,
      kind: 'CustomResourceDefinition',
      name,
    });
    const conditions = crd?.status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) {
      const why = conditions
        .filter((c) => c.status !== 'True' && c.message !== undefined)
        .map((c) => `${c.type}: ${c.message}`)
        .join('; ');
      throw new Error(
        `CustomResourceDefinition ${name} not Established after ${Math.round(timeoutMs / 1000)} s${why === '' ? '' : ` (${why})`}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
