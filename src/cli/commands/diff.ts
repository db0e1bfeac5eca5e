// `convoy diff NAME`: for each object of a render, what a sync would change in the live object —
// the object a server-side dry-run apply (as convoy: field manager `convoy`, the release label added)
// would leave, against the object as it is, like `kubectl diff` — and the objects it would prune.
// Exit codes as kubectl diff: 0 no differences, 1 differences, 2 error.
import { ANNOTATION_PRUNE, FIELD_MANAGERS } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { forcedAtOf, hookOutcomes, spentHookResources } from '../../controller/release/decide/hooks/index.ts';
import { isCRD } from '../../controller/release/decide/sync/index.ts';
import { applyObject } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isKubeError } from '../../kube/errors.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { keptBy } from '../../render/annotations.ts';
import { entryRef, objectKey } from '../../render/keys.ts';
import { labelled } from '../../render/labelled.ts';
import { maskSecretPair } from '../../render/secret-mask.ts';
import type { Obj, Render } from '../../render/types.ts';
import { readRender } from '../api.ts';
import type { DiffFrom } from '../args.ts';
import { type Ctx, getInventory, mustGetRelease, resolveRenderId, UserError } from '../context.ts';
import { diffLineStyle, diffSides, leftRenderLine, pruneCandidates, unifiedDiff, yamlOf } from '../diff.ts';
import { paint, shortRef } from '../format.ts';
import { renderDir, renderReleaseSource } from '../local-render.ts';
import { targetClient } from '../target.ts';
import { objectName } from '../views.ts';

export interface LoadedRender {
  readonly renderRef: string;
  readonly render: Render;
  /** How it was obtained, for the header line. */
  readonly from: string;
}

/** A stored render; for the current render, when it is not stored yet, the source rendered here. */
export async function loadRender(
  ctx: Ctx,
  release: Release,
  from: DiffFrom,
  target: KubeClient,
): Promise<LoadedRender> {
  const name = nameOf(release);
  switch (from.kind) {
    case 'dir': {
      const r = await renderDir(from.dir, release.spec, {
        target,
        name,
        ...(release.metadata.namespace === undefined ? {} : { namespace: release.metadata.namespace }),
      });
      return { renderRef: r.renderRef, render: r.render, from: `directory ${from.dir}` };
    }
    case 'render': {
      const ref = await resolveRenderId(ctx, release, from.renderRef);
      const render = await readRender(ctx, name, ref);
      if (render === undefined) {
        throw new UserError(`render ${ref} is not in the render store of ${ctx.namespace}/${name}`);
      }
      return { renderRef: ref, render, from: 'the render store' };
    }
    case 'current': {
      const ref = release.status?.currentRender?.renderRef;
      if (ref === undefined) {
        throw new UserError(
          `release ${ctx.namespace}/${name} has no current render yet (status.currentRender)`,
        );
      }
      const stored = await readRender(ctx, name, ref);
      if (stored !== undefined) return { renderRef: ref, render: stored, from: 'the render store' };
      // Not stored: a render the Manual gate holds is persisted only once approved.
      const local = await renderReleaseSource(release, ctx.client, target);
      if (local.renderRef !== ref) {
        throw new UserError(
          `the current render ${shortRef(ref)} is not stored, and the source renders to ${shortRef(local.renderRef)} now (it moved); run convoy sync ${name} and try again`,
        );
      }
      return { renderRef: ref, render: local.render, from: 'the source, rendered here' };
    }
    default:
      return assertNever(from);
  }
}

export interface DiffSummary {
  readonly changed: number;
  readonly unchanged: number;
  readonly errors: number;
  readonly pruned: number;
}

/** Prints the diff of every object and the prune list; returns the counts. */
export async function printDiff(
  ctx: Ctx,
  release: Release,
  loaded: LoadedRender,
  target: KubeClient,
): Promise<DiffSummary> {
  const ns = namespaceOf(release);
  const name = nameOf(release);
  const label = `${ns}.${name}`;
  const paintLine = (l: string) => {
    const s = diffLineStyle(l);
    return s === undefined ? l : paint(s, l, ctx.colour);
  };
  ctx.print(
    `Render ${shortRef(loaded.renderRef)} from ${loaded.from}: ${loaded.render.objects.length} objects, ${loaded.render.hooks.length} hooks (hooks are run as new workloads, not diffed)`,
  );
  let changed = 0;
  let unchanged = 0;
  let errors = 0;
  const inv = await getInventory(ctx, name);
  // Hook resources their delete policy removed after this render's hooks ran: a sync of the same render
  // does not create them again (docs/design.md#hooks), so their absence is no change.
  const spent = new Set(
    spentHookResources(
      loaded.render.objects,
      hookOutcomes({
        renderRef: loaded.renderRef,
        hooks: loaded.render.hooks,
        entries: inv?.hooks ?? [],
        forcedAt: forcedAtOf(release),
        now: Date.now(),
      }),
    ),
  );
  // Namespaces the render creates (Namespaces come first in its order): an object in one cannot be
  // dry run before it exists — the API answers "namespaces not found" — and is new all the same.
  const creates = new Set<string>();
  for (const obj of loaded.render.objects) {
    const what = objectName(objectKey(obj));
    if (spent.has(obj)) {
      unchanged++;
      ctx.print(
        `spent  ${what} (deleted after its hooks ran, by helm.sh/hook-delete-policy; a sync of this render leaves it out)`,
      );
      continue;
    }
    const sent = labelled(obj, label, release.metadata.uid);
    const ns = obj.metadata.namespace;
    const result: DryRun =
      ns !== undefined && creates.has(ns)
        ? { kind: 'ok', live: undefined, merged: sent }
        : await dryRun(target, sent);
    if (result.kind === 'error') {
      errors++;
      ctx.print(paint('red', `error: ${what}: ${result.message}`, ctx.colour));
      continue;
    }
    if (obj.apiVersion === 'v1' && obj.kind === 'Namespace' && result.live === undefined)
      creates.add(obj.metadata.name);
    const sides = diffSides(result.live, result.merged, sent);
    const shown = ctx.global.showSecrets ? sides : maskSecretPair(sides.before, sides.after);
    const before = yamlOf(shown.before);
    const after = yamlOf(shown.after);
    const lines = unifiedDiff(before, after, {
      before: `live ${what}${result.live === undefined ? ' (does not exist)' : ''}`,
      after: `render ${shortRef(loaded.renderRef)} ${what}`,
    });
    if (lines.length === 0) unchanged++;
    else {
      changed++;
      ctx.print(lines.map(paintLine));
    }
  }
  const { pruned, kept } = pruneCandidates(
    inv?.entries ?? [],
    loaded.render.objects.map(objectKey),
    release.spec.syncPolicy?.prune !== false,
  );
  let prunedCount = 0;
  for (const e of pruned) {
    // A read that failed (not a 404: get answers undefined for that) cannot tell whether the object opts
    // out of pruning; say so rather than guess either way.
    let live: Obj | undefined;
    try {
      live = await target.get<Obj>(entryRef(e));
    } catch (err) {
      prunedCount++;
      const why = isKubeError(err) ? err.apiMessage : errorMessage(err);
      ctx.print(
        paint(
          'red',
          `prune  ${objectName(e)} (left the render; could not read it to check ${ANNOTATION_PRUNE}: ${why})`,
          ctx.colour,
        ),
      );
      continue;
    }
    const line = leftRenderLine(
      objectName(e),
      isCRD(e),
      keptBy(live?.metadata.annotations),
      release.spec.syncPolicy?.pruneCRDs === true,
    );
    if (line.prune) prunedCount++;
    ctx.print(line.prune ? paint('red', line.text, ctx.colour) : line.text);
  }
  for (const e of kept) ctx.print(`keep   ${objectName(e)} (left the render; syncPolicy.prune is false)`);
  ctx.print(
    `${changed} changed, ${unchanged} unchanged, ${prunedCount} to prune${errors > 0 ? `, ${errors} failed the dry run` : ''}`,
  );
  return { changed, unchanged, errors, pruned: prunedCount };
}

type DryRun =
  | { readonly kind: 'ok'; readonly live: Obj | undefined; readonly merged: Obj }
  | { readonly kind: 'error'; readonly message: string };

/** The live object and the server's dry-run apply of `obj` (already labelled as the deployer sends it). */
async function dryRun(client: KubeClient, obj: Obj): Promise<DryRun> {
  try {
    const ref = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: obj.metadata.name,
      ...(obj.metadata.namespace === undefined ? {} : { namespace: obj.metadata.namespace }),
    };
    const live = await client.get<Obj>(ref);
    const merged = await applyObject(client, obj, {
      fieldManager: FIELD_MANAGERS.deployer,
      force: true,
      dryRun: true,
    });
    return { kind: 'ok', live, merged };
  } catch (err) {
    return { kind: 'error', message: isKubeError(err) ? err.apiMessage : errorMessage(err) };
  }
}

export async function diff(ctx: Ctx, name: string, from: DiffFrom): Promise<number> {
  const release = await mustGetRelease(ctx, name);
  const target = await targetClient(ctx, release);
  const loaded = await loadRender(ctx, release, from, target);
  const s = await printDiff(ctx, release, loaded, target);
  if (s.errors > 0) return 2;
  return s.changed > 0 || s.pruned > 0 ? 1 : 0;
}
