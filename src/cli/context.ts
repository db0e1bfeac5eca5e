// What every command gets: the clients for the resolved kubeconfig and namespace, the render store,
// the output streams and whether they are a terminal (colour and in-place progress only there).
import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION } from '../api/constants.ts';
import type { Release, ReleaseInventory } from '../api/types.ts';
import { KubeClient } from '../kube/client.ts';
import { readInventoryParts } from '../kube/inventory-read.ts';
import { assertNever } from '../lib/assert-never.ts';
import { nameOf } from '../lib/names.ts';
import { SecretRenderStore } from '../store/secrets.ts';
import type { Global } from './args.ts';
import { UserError } from './errors.ts';
import { colourEnabled } from './format.ts';
import { clientNodeConfig, loadConfig } from './kubeconfig.ts';
import { isFullRenderRef, matchRenderId, statusRenderRefs } from './render-id.ts';
import { setDefaultTrust } from './trust.ts';

export { UserError } from './errors.ts';

export interface Io {
  readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly err: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => Date;
}

export interface Ctx extends Io {
  /** client-node's KubeConfig of the same context, loaded on first use (it is heavy). */
  fullKubeConfig(): Promise<KubeConfig>;
  readonly client: KubeClient;
  readonly store: SecretRenderStore;
  readonly namespace: string;
  readonly global: Global;
  /** stdout is a terminal: colour (unless NO_COLOR) and in-place progress. */
  readonly tty: boolean;
  readonly colour: boolean;
  print(lines: readonly string[] | string): void;
  note(line: string): void;
}

/**
 * `apiServerOnly`: the command talks to nothing but the kubeconfig's API server, so the process may
 * trust only that server's CA (trust.ts).
 */
export async function makeCtx(global: Global, io: Io, apiServerOnly = false): Promise<Ctx> {
  const resolved = loadConfig({
    ...(global.kubeconfig === undefined ? {} : { kubeconfig: global.kubeconfig }),
    ...(global.context === undefined ? {} : { context: global.context }),
    ...(global.namespace === undefined ? {} : { namespace: global.namespace }),
    env: io.env,
  });
  const { namespace } = resolved;
  setDefaultTrust(apiServerOnly && resolved.auth.kind === 'lite' ? resolved.auth.config.ca : undefined);
  let full: Promise<KubeConfig> | undefined;
  const fullKubeConfig = () => {
    full ??= clientNodeConfig(resolved.paths, resolved.context);
    return full;
  };
  const tty = io.out.isTTY === true;
  // The transport only asks a kubeconfig for its server and per-request credentials (KubeAuth), which
  // LiteKubeConfig gives without loading client-node; no CLI path reads client.kubeConfig otherwise.
  const client =
    resolved.auth.kind === 'lite'
      ? new KubeClient(resolved.auth.config as unknown as KubeConfig)
      : new KubeClient(await fullKubeConfig());
  return {
    out: io.out,
    err: io.err,
    // not spread: io.stdin may be a getter that opens stdin (convoy.ts), which few commands read
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    now: io.now,
    fullKubeConfig,
    client,
    store: new SecretRenderStore(client),
    namespace,
    global,
    tty,
    colour: colourEnabled(tty, io.env),
    print(lines) {
      const text = typeof lines === 'string' ? lines : lines.join('\n');
      io.out.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    },
    note(line) {
      io.err.write(`${line}\n`);
    },
  };
}

export const releaseRef = (namespace: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  namespace,
  name,
});

/** The Release, or a UserError saying it does not exist in that namespace. */
export async function mustGetRelease(ctx: Ctx, name: string): Promise<Release> {
  const r = await ctx.client.get<Release>(releaseRef(ctx.namespace, name));
  if (r === undefined) throw new UserError(`release "${name}" not found in namespace "${ctx.namespace}"`);
  return r;
}

/** The Release's inventory, every part merged (docs/design.md#inventory-parts). */
export async function getInventory(ctx: Ctx, name: string): Promise<ReleaseInventory | undefined> {
  return (await readInventoryParts(ctx.client, { namespace: ctx.namespace, name }))?.inventory;
}

/** An object without managedFields, as kubectl prints it by default. */
export function withoutManagedFields<T extends { metadata?: { managedFields?: unknown } }>(obj: T): T {
  const { managedFields: _m, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata };
}

/**
 * The full renderRef of what the user typed (a full ref, or its first hex digits): matched against
 * the renders the Release's status names and its render store holds. A UserError when none or
 * several match.
 */
export async function resolveRenderId(ctx: Ctx, release: Release, id: string): Promise<string> {
  if (isFullRenderRef(id)) return id;
  const name = nameOf(release);
  const known = [
    ...statusRenderRefs(release.status),
    ...(release.spec.pin === undefined ? [] : [release.spec.pin.renderRef]),
    ...(await ctx.store.list(ctx.namespace, name)).map((m) => m.renderRef),
  ];
  const m = matchRenderId(id, known);
  switch (m.kind) {
    case 'one':
      return m.renderRef;
    case 'none':
      throw new UserError(
        `no render of ${ctx.namespace}/${name} starts with ${id}; convoy history ${name} lists them`,
      );
    case 'ambiguous':
      throw new UserError(
        `${id} matches ${m.renderRefs.length} renders of ${ctx.namespace}/${name}: type more digits`,
      );
    default:
      return assertNever(m);
  }
}
