import type { InventoryHook } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { type Ctx, getInventory, mustGetRelease, UserError } from '../context.ts';
import { belongs, eventLines, type KubeEvent } from '../events-view.ts';
import { targetClient } from '../target.ts';
import { printData } from './read.ts';

async function eventsIn(client: KubeClient, namespace: string): Promise<KubeEvent[]> {
  return client.list<KubeEvent>({ apiVersion: 'v1', kind: 'Event', namespace });
}

export async function events(ctx: Ctx, name: string): Promise<number> {
  const release = await mustGetRelease(ctx, name);
  const inv = await getInventory(ctx, name);
  const owned = {
    release: { namespace: ctx.namespace, name },
    entries: inv?.entries ?? [],
    hooks: inv?.hooks ?? [],
  };
  const target = await targetClient(ctx, release);
  const local = await eventsIn(ctx.client, ctx.namespace);
  // One list per namespace the objects and hooks are in (cluster-scoped objects' Events are in default).
  const namespaces = new Set<string>([
    ...owned.entries.map((e) => e.namespace || 'default'),
    ...owned.hooks.map((h) => h.namespace ?? ctx.namespace),
  ]);
  const remote: KubeEvent[] = [];
  for (const ns of namespaces) {
    if (target === ctx.client && ns === ctx.namespace) continue;
    remote.push(...(await eventsIn(target, ns)));
  }
  const mine = [
    ...(target === ctx.client ? [] : await eventsIn(target, ctx.namespace)),
    ...local,
    ...remote,
  ].filter((e) => belongs(e, owned));
  if (ctx.global.output !== 'table') {
    printData(ctx, ctx.global.output, { apiVersion: 'v1', kind: 'List', items: mine });
  } else if (mine.length === 0) {
    ctx.note(
      `No events for ${ctx.namespace}/${name}, its objects or its hooks (Events expire after an hour by default).`,
    );
  } else {
    ctx.print(eventLines(mine, ctx.now(), ctx.colour));
  }
  return 0;
}

interface Pod {
  readonly metadata: { readonly name: string; readonly creationTimestamp?: string };
  readonly spec?: { readonly containers?: readonly { readonly name: string }[] };
}

interface PodList {
  readonly items?: readonly Pod[];
}

function hookOf(hooks: readonly InventoryHook[], hook: string, release: string): InventoryHook {
  const h = hooks.find((x) => x.name === hook) ?? hooks.find((x) => x.workloadName === hook);
  if (h === undefined) {
    const names = hooks.map((x) => x.name);
    throw new UserError(
      `release ${release} has no hook "${hook}"${names.length === 0 ? ' (no hooks recorded)' : `; its hooks: ${names.join(', ')}`}`,
    );
  }
  if (h.workloadName === undefined)
    throw new UserError(`hook ${hook} of ${release} has not created its workload yet`);
  return h;
}

export async function logs(ctx: Ctx, name: string, hook: string, tail?: number): Promise<number> {
  const release = await mustGetRelease(ctx, name);
  const inv = await getInventory(ctx, name);
  const h = hookOf(inv?.hooks ?? [], hook, `${ctx.namespace}/${name}`);
  const target = await targetClient(ctx, release);
  const ns = h.namespace ?? ctx.namespace;
  const podsPath = await target.pathOf({ apiVersion: 'v1', kind: 'Pod', namespace: ns });
  const workload = h.workloadName ?? '';
  const pods =
    h.kind === 'Pod'
      ? [{ metadata: { name: workload } }]
      : [
          ...((
            await target.request<PodList>({
              method: 'GET',
              path: podsPath,
              query: { labelSelector: `batch.kubernetes.io/job-name=${workload}` },
            })
          ).items ?? []),
        ].sort((a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
        );
  if (pods.length === 0) {
    ctx.note(`${h.kind ?? 'Job'} ${ns}/${workload} of hook ${h.name} has no pods (yet, or any more)`);
    return 0;
  }
  for (const pod of pods) {
    const full = await target.request<Pod>({
      method: 'GET',
      path: `${podsPath}/${encodeURIComponent(pod.metadata.name)}`,
    });
    for (const c of full.spec?.containers ?? []) {
      const text = await target.transport.requestText({
        method: 'GET',
        path: `${podsPath}/${encodeURIComponent(pod.metadata.name)}/log`,
        query: { container: c.name, ...(tail === undefined ? {} : { tailLines: String(tail) }) },
        // text/plain alone is refused (406) by the API server's content negotiation; kubectl sends this
        accept: 'application/json, */*',
      });
      ctx.print(`==> pod ${ns}/${pod.metadata.name} container ${c.name} <==`);
      ctx.print(text);
    }
  }
  return 0;
}
