// `convoy tree NAME`: reads the health view (API, else the inventory) and prints it as a tree.
import { readHealth } from '../api.ts';
import type { Ctx } from '../context.ts';
import { treeLines } from '../tree-view.ts';
import { printData } from './read.ts';

export async function tree(ctx: Ctx, name: string): Promise<number> {
  const h = await readHealth(ctx, name);
  if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, h);
  else ctx.print(treeLines(h, { colour: ctx.colour }));
  return 0;
}
