// `convoy watch NAME`: follows the Release and its ReleaseInventory (every part) with API watches and prints the
// rollout's progress on every change until it ends. Exit 0 Succeeded, 1 Failed/RolledBack (or
// Stalled), 2 on errors and on --timeout. On a terminal the progress line is redrawn in place and
// coloured; otherwise each change is one plain, timestamped line.
import { API_VERSION } from '../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';
import { isGone } from '../../kube/errors.ts';
import { partSelector } from '../../kube/inventory-read.ts';
import type { ProgressSummary } from '../../server/progress.ts';
import { type Ctx, mustGetRelease, resolveRenderId, UserError } from '../context.ts';
import { duration, paint, shortRef } from '../format.ts';
import { isFullRenderRef } from '../render-id.ts';
import { defaultTimeoutMs, outcome, progress, progressLine, wholeInventory } from '../watch-view.ts';

/** Longer than the apiserver's bookmark interval (~1 min), so a quiet but live watch is kept. */
const WATCH_IDLE_MS = 90_000;

interface ListOf<T> {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly items?: T[];
}

/**
 * Calls onChange with the object (undefined: it does not exist) after a LIST, then on every watch
 * event; a watch that ends (the apiserver's timeout, an idle connection, 410 Gone) is re-listed and
 * re-opened, so no change between the two is missed.
 */
export function follow<T extends Named>(
  ctx: Ctx,
  kind: 'Release' | 'ReleaseInventory' | 'ReleaseSet',
  name: string,
  onChange: (obj: T | undefined) => void,
  signal: AbortSignal,
): Promise<void> {
  return followAll<T>(
    ctx,
    kind,
    { fieldSelector: `metadata.name=${name}` },
    (objs) => onChange(objs.get(name)),
    signal,
  );
}

interface Named {
  readonly metadata?: { readonly name?: string };
}

/**
 * Like follow, for every object the selector matches: onChange gets them all by name after the LIST and
 * on every watch event.
 */
export async function followAll<T extends Named>(
  ctx: Ctx,
  kind: 'Release' | 'ReleaseInventory' | 'ReleaseSet',
  selector: { readonly fieldSelector: string } | { readonly labelSelector: string },
  onChange: (objs: ReadonlyMap<string, T>) => void,
  signal: AbortSignal,
): Promise<void> {
  const path = await ctx.client.pathOf({ apiVersion: API_VERSION, kind, namespace: ctx.namespace });
  const nameOf = (o: T) => o.metadata?.name ?? '';
  let failures = 0;
  while (!signal.aborted) {
    let list: ListOf<T>;
    try {
      list = await ctx.client.request<ListOf<T>>({ method: 'GET', path, query: { ...selector } });
      failures = 0;
    } catch (err) {
      // The apiserver restarting or a network blip: back off and list again.
      if (++failures >= 10) throw err;
      await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** failures)));
      continue;
    }
    const objs = new Map((list.items ?? []).map((o) => [nameOf(o), o]));
    onChange(objs);
    if (signal.aborted) return;
    // The watch ends when the apiserver closes it (its timeout), when it goes idle (a half-open
    // connection), on an ERROR event (410 Gone) or on abort: in every case list again.
    const query = new URLSearchParams({
      watch: '1',
      ...selector,
      allowWatchBookmarks: 'true',
      ...(list.metadata?.resourceVersion === undefined
        ? {}
        : { resourceVersion: list.metadata.resourceVersion }),
    });
    try {
      await ctx.client.transport.watch({ path: `${path}?${query}`, signal, idleMs: WATCH_IDLE_MS }, (ev) => {
        const o = ev.object as T;
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') objs.set(nameOf(o), o);
        else if (ev.type === 'DELETED') objs.delete(nameOf(o));
        else return;
        onChange(objs);
      });
    } catch (err) {
      if (signal.aborted) return;
      if (!isGone(err)) {
        if (++failures >= 10) throw err;
        await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** failures)));
      }
    }
  }
}

/**
 * Calls onChange with the Release's whole inventory (undefined: none) once part 0 and parts 1…N
 * (docs/design.md#inventory-parts) have both been listed, then on every change of either.
 */
export function followInventory(
  ctx: Ctx,
  name: string,
  onChange: (inventory: ReleaseInventory | undefined) => void,
  signal: AbortSignal,
): Promise<void> {
  let head: ReleaseInventory | undefined;
  let parts: ReadonlyMap<string, ReleaseInventory> | undefined;
  let seenHead = false;
  const changed = () => {
    if (seenHead && parts !== undefined) onChange(wholeInventory(ctx.namespace, name, head, parts.values()));
  };
  const part0 = follow<ReleaseInventory>(
    ctx,
    'ReleaseInventory',
    name,
    (inv) => {
      seenHead = true;
      head = inv;
      changed();
    },
    signal,
  );
  const others = followAll<ReleaseInventory>(
    ctx,
    'ReleaseInventory',
    { labelSelector: partSelector(name) },
    (objs) => {
      parts = objs;
      changed();
    },
    signal,
  );
  return Promise.all([part0, others]).then(() => undefined);
}

export async function watch(
  ctx: Ctx,
  name: string,
  timeoutFlag?: number,
  renderId?: string,
): Promise<number> {
  // The render to wait for: a short id must name a render the Release knows; a full ref the controller
  // has not rendered yet (CI pushed a commit a moment ago) is waited for, and said so.
  const initial = await mustGetRelease(ctx, name);
  let renderRef = renderId;
  if (renderId !== undefined && !isFullRenderRef(renderId))
    renderRef = await resolveRenderId(ctx, initial, renderId);
  if (renderRef !== undefined && !progress(initial, undefined, renderRef).known) {
    ctx.note(
      `render ${shortRef(renderRef)} is not known to ${ctx.namespace}/${name} yet; waiting for the controller to render it`,
    );
  }
  const timeoutMs = timeoutFlag ?? defaultTimeoutMs(initial);
  const why = timeoutFlag === undefined ? ' (the rollout deadline plus a margin; --timeout to change)' : '';
  const abort = new AbortController();
  let release: Release | undefined;
  let inventory: ReleaseInventory | undefined;
  let seenRelease = false;
  let seenInventory = false;
  let lastLine = '';
  let lastKey = '';
  let lineOpen = false;
  const stamp = () => ctx.now().toISOString().slice(11, 19);

  const show = (p: ProgressSummary) => {
    const line = progressLine(p, ctx.colour);
    if (line === lastLine) return;
    lastLine = line;
    // On a terminal, counts update in place; a new state or wave starts a new line.
    const key = `${p.state}/${p.renderRef ?? ''}/${p.waves.current ?? ''}`;
    if (ctx.tty) {
      if (lineOpen && key === lastKey) ctx.out.write(`\r\x1b[2K${paint('dim', stamp(), ctx.colour)} ${line}`);
      else ctx.out.write(`${lineOpen ? '\n' : ''}${paint('dim', stamp(), ctx.colour)} ${line}`);
      lineOpen = true;
    } else {
      ctx.out.write(`${stamp()} ${line}\n`);
    }
    lastKey = key;
  };
  const endLine = () => {
    if (lineOpen) ctx.out.write('\n');
    lineOpen = false;
  };

  const result = new Promise<number>((resolve, reject) => {
    const finish = (code: number, message: string) => {
      endLine();
      const style = code === 0 ? 'green' : 'red';
      (code === 2 ? ctx.err : ctx.out).write(`${paint(style, message, ctx.colour)}\n`);
      abort.abort();
      resolve(code);
    };
    const evaluate = () => {
      // Every first LIST in, so the first line never counts objects of an inventory not read yet.
      if (abort.signal.aborted || !seenRelease || !seenInventory) return;
      if (release === undefined) {
        finish(2, `release ${ctx.namespace}/${name} was deleted`);
        return;
      }
      show(progress(release, inventory, renderRef));
      const o = outcome(release, renderRef);
      if (o.kind === 'done') finish(o.exitCode, o.summary);
    };
    let first = true;
    follow<Release>(
      ctx,
      'Release',
      name,
      (r) => {
        if (first && r === undefined) {
          abort.abort();
          reject(new UserError(`release "${name}" not found in namespace "${ctx.namespace}"`));
          return;
        }
        first = false;
        seenRelease = true;
        release = r;
        evaluate();
      },
      abort.signal,
    ).catch(reject);
    followInventory(
      ctx,
      name,
      (inv) => {
        seenInventory = true;
        inventory = inv;
        evaluate();
      },
      abort.signal,
    ).catch(reject);
    const t = setTimeout(() => {
      const o = release === undefined ? undefined : outcome(release, renderRef);
      finish(
        2,
        `timed out after ${duration(timeoutMs)}${why}${o?.kind === 'continue' ? ` waiting for ${o.waitingFor}` : ''}`,
      );
    }, timeoutMs);
    abort.signal.addEventListener('abort', () => clearTimeout(t), { once: true });
  });
  try {
    return await result;
  } finally {
    abort.abort();
  }
}
