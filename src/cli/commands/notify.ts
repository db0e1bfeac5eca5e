// `convoy get alerts|providers|receivers [NAME]`: the notification objects of a namespace (or all, -A)
// as tables in the manner of `convoy get`, or the objects with -o yaml|json. Only what the objects
// say: a Provider's Secret is named, never read.
import { API_VERSION } from '../../api/constants.ts';
import type { Alert, Condition, KubeObject, Provider, Receiver } from '../../api/types.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import type { NotifyResource } from '../args.ts';
import type { Ctx } from '../context.ts';
import { withoutManagedFields } from '../context.ts';
import { UserError } from '../errors.ts';
import { age, byNamespaceName, dash, paintState, table } from '../format.ts';
import { printData, printList } from './read.ts';

const KINDS = { alerts: 'Alert', providers: 'Provider', receivers: 'Receiver' } as const;

type Any = Alert | Provider | Receiver;

function ready(o: { status?: { conditions?: Condition[] } }): Condition | undefined {
  return o.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Columns per kind after NAME: what `kubectl get` shows for the CRD, plus the Ready message. Pure. */
export function notifyTable(
  resource: NotifyResource,
  items: readonly Any[],
  all: boolean,
  now: Date,
  colour: boolean,
): string[] {
  const head: Record<NotifyResource, string[]> = {
    alerts: ['NAME', 'PROVIDER', 'EVENTS', 'SEVERITY', 'READY', 'AGE', 'MESSAGE'],
    providers: ['NAME', 'TYPE', 'READY', 'AGE', 'MESSAGE'],
    receivers: ['NAME', 'TYPE', 'READY', 'PATH', 'AGE', 'MESSAGE'],
  };
  const rows = [...items].sort(byNamespaceName).map((o) => {
    const c = ready(o);
    const st = c === undefined ? '-' : paintState(c.status, colour);
    const created = age(o.metadata.creationTimestamp, now);
    const msg = c?.message ?? '';
    let row: string[];
    switch (o.kind) {
      case 'Alert':
        row = [
          nameOf(o),
          o.spec.providerRef.name,
          o.spec.events?.length ? o.spec.events.join(',') : 'all',
          o.spec.severity ?? 'info',
          st,
          created,
          msg,
        ];
        break;
      case 'Provider':
        row = [nameOf(o), o.spec.type, st, created, msg];
        break;
      case 'Receiver':
        row = [nameOf(o), o.spec.type, st, dash(o.status?.webhookPath), created, msg];
        break;
    }
    return all ? [namespaceOf(o), ...row] : row;
  });
  const h = head[resource];
  return table([all ? ['NAMESPACE', ...h] : h, ...rows]);
}

export async function getNotify(
  ctx: Ctx,
  resource: NotifyResource,
  args: { readonly name?: string; readonly labelSelector?: string },
): Promise<number> {
  const kind = KINDS[resource];
  const now = ctx.now();
  if (args.name !== undefined) {
    const o = await ctx.client.get<Any & KubeObject>({
      apiVersion: API_VERSION,
      kind,
      namespace: ctx.namespace,
      name: args.name,
    });
    if (o === undefined) {
      throw new UserError(`${kind.toLowerCase()} "${args.name}" not found in namespace "${ctx.namespace}"`);
    }
    if (ctx.global.output !== 'table') printData(ctx, ctx.global.output, withoutManagedFields(o));
    else ctx.print(notifyTable(resource, [o], false, now, ctx.colour));
    return 0;
  }
  const all = ctx.global.allNamespaces;
  const list = await ctx.client.list<Any & KubeObject>(
    { apiVersion: API_VERSION, kind, ...(all ? {} : { namespace: ctx.namespace }) },
    args.labelSelector === undefined ? undefined : { labelSelector: args.labelSelector },
  );
  printList(ctx, list, resource, (l) => notifyTable(resource, l, all, now, ctx.colour));
  return 0;
}
