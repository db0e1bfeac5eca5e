// `convoy ui`: serves the web UI (src/ui) on 127.0.0.1 with the user's kubeconfig. The UI's reads and
// writes beyond the watches are this CLI's own commands — history, diff, logs, sync, approve, pin,
// rollback, unpin, suspend, resume — run in a context bound to the Release's namespace whose printed
// lines become the page's answer, so the UI does and says exactly what the CLI would for this user.
import type { Release } from '../../api/types.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { maskSecret } from '../../render/secret-mask.ts';
import type { UiAction } from '../../ui/actions.ts';
import type { UiBackend } from '../../ui/backend.ts';
import { startUiServer, type UiServer } from '../../ui/server.ts';
import { readHistory, readRender, requestSync } from '../api.ts';
import { type Ctx, mustGetRelease } from '../context.ts';
import { describeError } from '../errors.ts';
import { targetClient } from '../target.ts';

/** A context for one namespace whose output is collected instead of written (stdin is never read). */
function capture(ctx: Ctx, namespace: string): { readonly ctx: Ctx; readonly lines: string[] } {
  const lines: string[] = [];
  const push = (text: readonly string[] | string) => {
    const t = typeof text === 'string' ? text : text.join('\n');
    lines.push(...t.replace(/\n$/, '').split('\n'));
  };
  // Object.create keeps ctx's getters lazy (stdin is opened only when read).
  const c = Object.create(ctx, {
    namespace: { value: namespace },
    colour: { value: false },
    tty: { value: false },
    global: { value: { ...ctx.global, namespace, showSecrets: false } },
    print: { value: push },
    note: { value: (line: string) => push(line) },
  }) as Ctx;
  return { ctx: c, lines };
}

/** The CLI's reads and writes, for the UI server. */
export function cliBackend(ctx: Ctx): UiBackend {
  return {
    client: ctx.client,
    namespace: ctx.namespace,
    history: (ns: string, release: Release) => readHistory(capture(ctx, ns).ctx, release),
    async diff(ns, name, renderRef) {
      const { ctx: c, lines } = capture(ctx, ns);
      const release = await mustGetRelease(c, name);
      const target = await targetClient(c, release);
      const { loadRender, printDiff } = await import('./diff.ts');
      // The current render may not be stored yet (a Manual gate holds it): loadRender renders its source.
      const current = renderRef === undefined || renderRef === release.status?.currentRender?.renderRef;
      const loaded = await loadRender(
        c,
        release,
        current ? { kind: 'current' } : { kind: 'render', renderRef },
        target,
      );
      await printDiff(c, release, loaded, target);
      return { renderRef: loaded.renderRef, lines };
    },
    async render(ns, name, renderRef) {
      const r = await readRender(capture(ctx, ns).ctx, name, renderRef);
      return r === undefined
        ? undefined
        : {
            renderRef,
            objects: r.objects.map((o) => maskSecret(o)),
            hooks: r.hooks.map((o) => maskSecret(o)),
          };
    },
    async logs(ns, name, hook) {
      const { ctx: c, lines } = capture(ctx, ns);
      await (await import('./events.ts')).logs(c, name, hook, 500);
      return lines;
    },
    async act(ns, name, action: UiAction) {
      const { ctx: c, lines } = capture(ctx, ns);
      const w = await import('./write.ts');
      switch (action.kind) {
        case 'sync':
          await w.sync(c, name, false, false);
          break;
        case 'forceSync':
          await w.sync(c, name, true, false);
          break;
        case 'approve': {
          // The render whose diff the page showed: refused if the current render moved since.
          const res = await requestSync(
            c,
            name,
            { force: false, approve: true },
            { direct: false, expectApproved: action.renderRef },
          );
          c.print(`approved render ${res.set.approvedRender ?? action.renderRef} for ${ns}/${name}`);
          break;
        }
        case 'pin':
          await w.pin(c, name, action.renderRef);
          break;
        case 'rollback':
          await w.rollback(c, name);
          break;
        case 'unpin':
          await w.unpin(c, name);
          break;
        case 'suspend':
        case 'resume':
          await (await import('./suspend.ts')).setSuspended(c, name, action.kind === 'suspend');
          break;
        default:
          return assertNever(action);
      }
      return lines;
    },
    describeError,
  };
}

/** Starts the UI server for this context; `convoy dev` calls it too. */
export function serveUi(ctx: Ctx, port: number): Promise<UiServer> {
  return startUiServer({
    backend: cliBackend(ctx),
    allNamespaces: ctx.global.namespace === undefined,
    port,
  });
}

export async function ui(ctx: Ctx, port: number): Promise<number> {
  const server = await serveUi(ctx, port);
  const scope = server.live.scope;
  ctx.print(`convoy ui: ${server.url}`);
  ctx.print(
    `watching Releases ${scope.kind === 'all' ? 'in every namespace' : `in namespace ${scope.namespace} (you may not list them in every namespace)`} with your kubeconfig; Ctrl-C stops it`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
