// `convoy fleet status NAME` and `convoy fleet watch NAME`: a ReleaseSet's train and per-cluster table
// (docs/fleets.md). watch follows the set with an API watch and exits 0 when the revision reached every
// cluster, 1 on a stopped train or a fleet rollback, 2 on errors and on --timeout.
import { API_VERSION } from '../../api/constants.ts';
import type { ReleaseSet } from '../../api/types.ts';
import { type Ctx, UserError, withoutManagedFields } from '../context.ts';
import { fleetLines, fleetOutcome } from '../fleet-view.ts';
import { duration } from '../format.ts';
import { printData } from './read.ts';
import { follow } from './watch.ts';

const DEFAULT_TIMEOUT_MS = 30 * 60_000;

async function mustGetSet(ctx: Ctx, name: string): Promise<ReleaseSet> {
  const set = await ctx.client.get<ReleaseSet>({
    apiVersion: API_VERSION,
    kind: 'ReleaseSet',
    namespace: ctx.namespace,
    name,
  });
  if (set === undefined)
    throw new UserError(`releaseset "${name}" not found in namespace "${ctx.namespace}"`);
  return set;
}

export async function fleetStatus(ctx: Ctx, name: string): Promise<number> {
  const set = await mustGetSet(ctx, name);
  if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, withoutManagedFields(set));
  else ctx.print(fleetLines(set, ctx.colour));
  return 0;
}

export async function fleetWatch(ctx: Ctx, name: string, timeoutFlag?: number): Promise<number> {
  await mustGetSet(ctx, name);
  const timeoutMs = timeoutFlag ?? DEFAULT_TIMEOUT_MS;
  const abort = new AbortController();
  const stamp = () => ctx.now().toISOString().slice(11, 19);
  let last = '';
  const result = new Promise<number>((resolve, reject) => {
    const finish = (code: number, line: string) => {
      if (abort.signal.aborted) return;
      (code === 2 ? ctx.err : ctx.out).write(`${line}\n`);
      abort.abort();
      resolve(code);
    };
    const timer = setTimeout(
      () => finish(2, `gave up after ${duration(timeoutMs)} (--timeout to change)`),
      timeoutMs,
    );
    abort.signal.addEventListener('abort', () => clearTimeout(timer));
    follow<ReleaseSet>(
      ctx,
      'ReleaseSet',
      name,
      (set) => {
        if (set === undefined) return finish(2, `releaseset ${ctx.namespace}/${name} was deleted`);
        const o = fleetOutcome(set);
        if (o.kind === 'done') return finish(o.code, o.line);
        if (o.line !== last) ctx.out.write(`${stamp()} ${o.line}\n`);
        last = o.line;
      },
      abort.signal,
    ).catch((err: unknown) => {
      abort.abort();
      reject(err);
    });
  });
  return await result;
}
