// `convoy suspend NAME` / `convoy resume NAME`: spec.suspend applied with Server-Side Apply as the
// CLI's field manager (taking the field over: it is a person's explicit decision, like a pin). While
// suspended the controller neither syncs nor rolls back the Release, and its Ready condition says so.
import { API_VERSION } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { applyObject } from '../../kube/apply.ts';
import { type Ctx, mustGetRelease } from '../context.ts';
import { CLI_FIELD_MANAGER } from './write.ts';

export async function setSuspended(ctx: Ctx, name: string, suspend: boolean): Promise<number> {
  const before = await mustGetRelease(ctx, name);
  const was = before.spec.suspend === true;
  const what = `${ctx.namespace}/${name}`;
  if (was === suspend) {
    ctx.print(`${what} is already ${suspend ? 'suspended' : 'not suspended'}; nothing to do`);
    return 0;
  }
  await applyObject<Release>(
    ctx.client,
    {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { namespace: ctx.namespace, name },
      spec: { suspend },
    } as Release,
    { fieldManager: CLI_FIELD_MANAGER, force: true, uidPrecondition: before.metadata.uid },
  );
  if (suspend) {
    ctx.print(`suspended ${what}: convoy neither syncs nor rolls it back until you resume it`);
    ctx.print(`Undo: convoy resume ${name} -n ${ctx.namespace}`);
  } else {
    ctx.print(`resumed ${what}: convoy syncs it again (a rollout past its deadline is judged at once)`);
    ctx.print(`follow it with: convoy watch ${name} -n ${ctx.namespace}`);
  }
  return 0;
}
