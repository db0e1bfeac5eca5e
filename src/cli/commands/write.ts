// The commands that change a Release: `sync` and `approve` (through the HTTP API's /sync, or the same
// annotations written directly), and `pin`/`unpin`/`rollback` (spec.pin.renderRef, applied with
// Server-Side Apply as the field manager `convoy-cli`, so unpin is an apply without the field).
import { createInterface } from 'node:readline/promises';
import { API_VERSION } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { applyObject } from '../../kube/apply.ts';
import { errorMessage } from '../../lib/errors.ts';
import { requestSync } from '../api.ts';
import { type Ctx, mustGetRelease, releaseRef, resolveRenderId, UserError } from '../context.ts';
import { shortRef } from '../format.ts';
import { targetClient } from '../target.ts';

/**
 * The CLI's own field manager for spec.pin (docs/design.md#field-ownership lists the controller's; this one
 * is the user's).
 */
export const CLI_FIELD_MANAGER = 'convoy-cli';

export async function sync(ctx: Ctx, name: string, force: boolean, direct: boolean): Promise<number> {
  const res = await requestSync(ctx, name, { force, approve: false }, { direct });
  const via = res.via === 'api' ? 'through the convoy API' : 'by writing the annotations directly';
  ctx.print(`sync requested for ${ctx.namespace}/${name} at ${res.set.syncRequestedAt} (${via})`);
  if (force) {
    ctx.print(
      [
        `forced sync at ${res.set.forceSyncAt ?? '?'}: the next reconcile opens the manual gate once, re-applies,`,
        're-arms hooks and retries a Failed or RolledBack render once.',
        'The forced sync is consumed by that reconcile even if it fails; run sync --force again to retry.',
      ].join('\n'),
    );
  }
  ctx.print(`follow it with: convoy watch ${name} -n ${ctx.namespace}`);
  return 0;
}

/** `approve`, and `sync --approve` (which may also `--force`). */
export async function approve(
  ctx: Ctx,
  name: string,
  yes: boolean,
  direct: boolean,
  force: boolean,
): Promise<number> {
  const release = await mustGetRelease(ctx, name);
  const mode = release.spec.syncPolicy?.mode ?? 'Auto';
  if (mode !== 'Manual') {
    throw new UserError(
      `release ${ctx.namespace}/${name} is in ${mode} mode: approval applies only to syncPolicy.mode Manual`,
    );
  }
  const ref = release.status?.currentRender?.renderRef;
  if (ref === undefined) {
    throw new UserError(
      `release ${ctx.namespace}/${name} has no current render yet; wait for the controller to render it`,
    );
  }
  const target = await targetClient(ctx, release);
  const { loadRender, printDiff } = await import('./diff.ts');
  try {
    const loaded = await loadRender(ctx, release, { kind: 'current' }, target);
    await printDiff(ctx, release, loaded, target);
  } catch (err) {
    ctx.print(`cannot show the diff: ${errorMessage(err)}`);
  }
  if (!yes) {
    if (ctx.stdin.isTTY !== true) {
      throw new UserError(
        `not approved: stdin is not a terminal, so there is no one to confirm; re-run with --yes to approve ${ref}`,
      );
    }
    const rl = createInterface({ input: ctx.stdin, output: ctx.out });
    const answer = await rl.question(`Approve render ${ref} for ${ctx.namespace}/${name}? [y/N] `);
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      ctx.print('not approved; nothing was written');
      return 1;
    }
  }
  const res = await requestSync(ctx, name, { force, approve: true }, { direct, expectApproved: ref });
  ctx.print(`approved render ${res.set.approvedRender ?? ref} for ${ctx.namespace}/${name}`);
  ctx.print(`follow it with: convoy watch ${name} -n ${ctx.namespace}`);
  return 0;
}

async function applyPin(ctx: Ctx, name: string, renderRef: string | undefined): Promise<Release> {
  return applyObject<Release>(
    ctx.client,
    {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { namespace: ctx.namespace, name },
      ...(renderRef === undefined ? {} : { spec: { pin: { renderRef } } }),
    } as Release,
    // A pin is a person's explicit decision: it takes spec.pin over from whoever set it before.
    {
      fieldManager: CLI_FIELD_MANAGER,
      force: true,
      uidPrecondition: (await mustGetRelease(ctx, name)).metadata.uid,
    },
  );
}

/** Refuses a render the store does not hold (the controller would only report PinNotFound). */
async function checkStored(ctx: Ctx, name: string, renderRef: string): Promise<void> {
  let stored: boolean;
  try {
    stored = (await ctx.store.list(ctx.namespace, name)).some((m) => m.renderRef === renderRef && m.complete);
  } catch (err) {
    ctx.note(`warning: cannot check the render store (${errorMessage(err)}); pinning anyway`);
    return;
  }
  if (!stored) {
    throw new UserError(
      `render ${shortRef(renderRef)} is not in the render store of ${ctx.namespace}/${name}; see convoy history ${name} for the renders you can pin`,
    );
  }
}

export async function pin(ctx: Ctx, name: string, id: string): Promise<number> {
  const before = await mustGetRelease(ctx, name);
  const renderRef = await resolveRenderId(ctx, before, id);
  await checkStored(ctx, name, renderRef);
  await applyPin(ctx, name, renderRef);
  const prev = before.spec.pin?.renderRef;
  ctx.print(
    `pinned ${ctx.namespace}/${name} to render ${shortRef(renderRef)}${prev !== undefined && prev !== renderRef ? ` (was pinned to ${shortRef(prev)})` : ''}`,
  );
  ctx.print('While pinned, convoy applies that render and does not follow the source (no rollout).');
  ctx.print(`Undo: convoy unpin ${name} -n ${ctx.namespace}`);
  return 0;
}

export async function unpin(ctx: Ctx, name: string): Promise<number> {
  const before = await mustGetRelease(ctx, name);
  const prev = before.spec.pin?.renderRef;
  if (prev === undefined) {
    ctx.print(`${ctx.namespace}/${name} is not pinned; nothing to do`);
    return 0;
  }
  let after = await applyPin(ctx, name, undefined);
  if (after.spec.pin !== undefined) {
    // Another manager (kubectl edit, a GitOps tool) also owns spec.pin, so the apply left it: remove it
    // outright, as the user asked.
    after = await ctx.client.request<Release>({
      method: 'PATCH',
      path: await ctx.client.pathOf(releaseRef(ctx.namespace, name)),
      contentType: 'application/merge-patch+json',
      body: { spec: { pin: null } },
      query: { fieldManager: CLI_FIELD_MANAGER },
    });
    ctx.note('note: spec.pin was also set by another field manager; removed it with a merge patch');
  }
  ctx.print(
    `unpinned ${ctx.namespace}/${name} (was pinned to ${shortRef(prev)}); convoy follows the source again`,
  );
  ctx.print(`Undo: convoy pin ${name} ${shortRef(prev)} -n ${ctx.namespace}`);
  return 0;
}

export async function rollback(ctx: Ctx, name: string): Promise<number> {
  const release = await mustGetRelease(ctx, name);
  const healthy = release.status?.lastHealthy;
  if (healthy === undefined) {
    throw new UserError(
      `release ${ctx.namespace}/${name} has no last healthy render (status.lastHealthy): nothing to roll back to`,
    );
  }
  const prev = release.spec.pin?.renderRef;
  if (prev === healthy.renderRef) {
    ctx.print(
      `${ctx.namespace}/${name} is already pinned to its last healthy render ${shortRef(healthy.renderRef)}`,
    );
    return 0;
  }
  const applied = release.status?.lastSuccessful?.renderRef;
  const current = release.status?.currentRender?.renderRef;
  if (
    prev === undefined &&
    applied === healthy.renderRef &&
    (current === undefined || current === healthy.renderRef)
  ) {
    // Pinning it would only stop convoy from following the source: say so, change nothing.
    ctx.print(
      `${ctx.namespace}/${name} already runs its last healthy render ${shortRef(healthy.renderRef)} (revision ${healthy.revision}); nothing to roll back, nothing pinned`,
    );
    return 0;
  }
  await checkStored(ctx, name, healthy.renderRef);
  await applyPin(ctx, name, healthy.renderRef);
  ctx.print(
    `rolled back ${ctx.namespace}/${name}: pinned to the last healthy render ${shortRef(healthy.renderRef)} (revision ${healthy.revision}, healthy since ${healthy.time})`,
  );
  if (current !== undefined && current !== healthy.renderRef) {
    ctx.print(`It replaces ${shortRef(current)}; convoy does not follow the source while pinned.`);
  }
  ctx.print(
    prev === undefined
      ? `Undo: convoy unpin ${name} -n ${ctx.namespace}`
      : `Undo: convoy pin ${name} ${shortRef(prev)} -n ${ctx.namespace}`,
  );
  return 0;
}
