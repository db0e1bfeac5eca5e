// Every command but those main.ts runs itself (help and the fast reads): builds the context and runs
// one command, each command's code imported only when it runs, so no command pays for the diff
// machinery, the renderers or client-node unless it uses them. In the CLI bundle this file is the
// entry of the chunks (src/cli/bundle.ts), a copy of the CLI apart from main.ts's: it catches and
// prints its own errors.

import { assertNever } from '../lib/assert-never.ts';
import type { Command, NotifyResource } from './args.ts';
import type { Io } from './context.ts';
import { describeError } from './errors.ts';
import { setDefaultTrust } from './trust.ts';

/**
 * Commands whose only peer is the kubeconfig's API server (events and logs may read a target cluster,
 * diff renders sources, the writers may go through the convoy API or a target cluster).
 */
const API_SERVER_ONLY: ReadonlySet<string> = new Set(['get', 'tree', 'watch', 'suspend', 'resume']);

/** The commands main.ts hands over: all but help and the fast reads (`get` of notification kinds). */
export type RunCommand =
  | Exclude<Command, { kind: 'help' | 'get' | 'status' | 'health' | 'history' }>
  | (Extract<Command, { kind: 'get' }> & { readonly resource: NotifyResource });

export async function runCommand(c: RunCommand, io: Io): Promise<number> {
  try {
    // Say what TLS connections trust first (trust.ts): makeCtx narrows it to the API server's CA for
    // the commands that talk to nothing else; commands that open no connection at all skip the cost.
    const offline = c.kind === 'rulesEval' || (c.kind === 'render' && !c.dir.startsWith('oci://'));
    if (!offline && !API_SERVER_ONLY.has(c.kind)) setDefaultTrust(undefined);
    switch (c.kind) {
      case 'dev': {
        const { devMain } = await import('./dev.ts');
        return await devMain(c.args, io.out, io.err);
      }
      case 'render':
        return await (await import('./commands/offline.ts')).render(io, {
          dir: c.dir,
          substitute: c.substitute,
          refOnly: c.refOnly,
          output: c.global.output,
          showSecrets: c.global.showSecrets === true,
          apiVersions: c.apiVersions,
          ...(c.targetNamespace === undefined ? {} : { targetNamespace: c.targetNamespace }),
          ...(c.path === undefined ? {} : { path: c.path }),
          ...(c.registry === undefined ? {} : { registry: c.registry }),
          ...(c.type === undefined ? {} : { type: c.type }),
          ...(c.release === undefined ? {} : { release: c.release }),
          ...(c.kubeVersion === undefined ? {} : { kubeVersion: c.kubeVersion }),
          ...(c.global.namespace === undefined ? {} : { namespace: c.global.namespace }),
        });
      case 'pushArtifact':
        return await (await import('./commands/push.ts')).pushArtifactCommand(io, c);
      case 'rulesEval':
        return await (await import('./commands/offline.ts')).rules(io, c);
      case 'import':
        return await (await import('./commands/import.ts')).importCommand(io, c);
      default:
        break;
    }
    const ctx = await (await import('./context.ts')).makeCtx(c.global, io, API_SERVER_ONLY.has(c.kind));
    switch (c.kind) {
      case 'get':
        return await (await import('./commands/notify.ts')).getNotify(ctx, c.resource, {
          ...(c.name === undefined ? {} : { name: c.name }),
          ...(c.labelSelector === undefined ? {} : { labelSelector: c.labelSelector }),
        });
      case 'tree':
        return await (await import('./commands/tree.ts')).tree(ctx, c.name);
      case 'events':
        return await (await import('./commands/events.ts')).events(ctx, c.name);
      case 'logs':
        return await (await import('./commands/events.ts')).logs(ctx, c.name, c.hook, c.tail);
      case 'diff':
        return await (await import('./commands/diff.ts')).diff(ctx, c.name, c.from);
      case 'sync': {
        const w = await import('./commands/write.ts');
        return c.approve
          ? await w.approve(ctx, c.name, c.yes, c.direct, c.force)
          : await w.sync(ctx, c.name, c.force, c.direct);
      }
      case 'approve':
        return await (await import('./commands/write.ts')).approve(ctx, c.name, c.yes, c.direct, false);
      case 'pin':
        return await (await import('./commands/write.ts')).pin(ctx, c.name, c.renderRef);
      case 'unpin':
        return await (await import('./commands/write.ts')).unpin(ctx, c.name);
      case 'rollback':
        return await (await import('./commands/write.ts')).rollback(ctx, c.name);
      case 'suspend':
        return await (await import('./commands/suspend.ts')).setSuspended(ctx, c.name, true);
      case 'resume':
        return await (await import('./commands/suspend.ts')).setSuspended(ctx, c.name, false);
      case 'watch':
        return await (await import('./commands/watch.ts')).watch(ctx, c.name, c.timeoutMs, c.renderRef);
      case 'fleetStatus':
        return await (await import('./commands/fleet.ts')).fleetStatus(ctx, c.name);
      case 'fleetWatch':
        return await (await import('./commands/fleet.ts')).fleetWatch(ctx, c.name, c.timeoutMs);
      case 'ui':
        return await (await import('./commands/ui.ts')).ui(ctx, c.port);
      default:
        return assertNever(c);
    }
  } catch (err) {
    io.err.write(`convoy: ${describeError(err)}\n`);
    return 2;
  }
}
