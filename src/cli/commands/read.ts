// `get`/`list`, `status`, `health`, `history`: read, then print a view (or the raw object with -o).
import { stringify } from 'yaml';
import { API_VERSION } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { readHealth, readHistory } from '../api.ts';
import type { Output, StatusSelector } from '../args.ts';
import { type Ctx, getInventory, mustGetRelease, withoutManagedFields } from '../context.ts';
import { healthLines, historyLines, matchesStatus, releaseTable, statusLines } from '../views.ts';

/** -o yaml|json: the value as kubectl would print it. */
export function printData(ctx: Ctx, output: Exclude<Output, 'table'>, value: unknown): void {
  ctx.print(output === 'json' ? JSON.stringify(value, null, 2) : stringify(value, { lineWidth: 0 }));
}

/**
 * A listed kind as -o asks: a v1 List of the objects (without managedFields), a line saying there are
 * none of `what` (in the namespace, without -A), or the table `rows` makes.
 */
export function printList<T extends { metadata?: { managedFields?: unknown } }>(
  ctx: Ctx,
  list: readonly T[],
  what: string,
  rows: (list: readonly T[]) => string[],
): void {
  const all = ctx.global.allNamespaces;
  if (ctx.global.output !== 'table') {
    printData(ctx, ctx.global.output, {
      apiVersion: 'v1',
      kind: 'List',
      items: list.map((o) => withoutManagedFields(o)),
    });
  } else if (list.length === 0) {
    ctx.note(all ? `No ${what} found.` : `No ${what} found in namespace ${ctx.namespace}.`);
  } else {
    ctx.print(rows(list));
  }
}

export interface GetArgs {
  readonly name?: string;
  readonly labelSelector?: string;
  readonly statusSelector?: StatusSelector;
}

export async function get(ctx: Ctx, args: GetArgs): Promise<number> {
  const o = { now: ctx.now(), colour: ctx.colour };
  const { name } = args;
  if (name !== undefined) {
    const r = await mustGetRelease(ctx, name);
    if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, withoutManagedFields(r));
    else ctx.print(releaseTable([r], false, o));
    return 0;
  }
  const all = ctx.global.allNamespaces;
  const listed = await ctx.client.list<Release>(
    { apiVersion: API_VERSION, kind: 'Release', ...(all ? {} : { namespace: ctx.namespace }) },
    args.labelSelector === undefined ? undefined : { labelSelector: args.labelSelector },
  );
  const sel = args.statusSelector;
  const list = sel === undefined ? listed : listed.filter((r) => matchesStatus(r, sel));
  printList(ctx, list, 'releases', (l) => releaseTable(l, all, o));
  return 0;
}

export async function status(ctx: Ctx, name: string): Promise<number> {
  const [r, inv] = await Promise.all([mustGetRelease(ctx, name), getInventory(ctx, name)]);
  if (ctx.global.output !== 'table') {
    printData(ctx, ctx.global.output, {
      status: r.status ?? {},
      inventory: inv === undefined ? null : { entries: inv.entries ?? [], hooks: inv.hooks ?? [] },
    });
    return 0;
  }
  ctx.print(statusLines(r, inv, { now: ctx.now(), colour: ctx.colour }));
  return 0;
}

export async function health(ctx: Ctx, name: string): Promise<number> {
  const h = await readHealth(ctx, name);
  if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, h);
  else ctx.print(healthLines(h, { now: ctx.now(), colour: ctx.colour }));
  return 0;
}

export async function history(ctx: Ctx, name: string): Promise<number> {
  const r = await mustGetRelease(ctx, name);
  const h = await readHistory(ctx, r);
  if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, h);
  else ctx.print(historyLines(h, r, { now: ctx.now(), colour: ctx.colour }));
  return 0;
}
