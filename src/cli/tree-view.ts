// `convoy tree NAME`: the objects of a Release as a tree — PreSync hooks, then each wave with its
// objects, then PostSync and other hooks — each with its health state, the rule that decided and its
// message (like `argocd app resources` / `flux tree`). Pure: built from the health view.
import type { HealthEntryView, HealthResult, HookView } from '../server/views.ts';
import { dash, paintState, shortRef, table } from './format.ts';
import { objectName } from './views.ts';
import { progressLine } from './watch-view.ts';

export interface TreeOptions {
  readonly colour: boolean;
}

function branch(rows: readonly (readonly string[])[]): string[] {
  const lines = table(rows);
  return lines.map((l, i) => `${i === lines.length - 1 ? '└─' : '├─'} ${l}`);
}

function hookRows(hooks: readonly HookView[], o: TreeOptions): string[][] {
  return hooks.map((h) => [
    `${h.kind ?? 'hook'}/${dash(h.workloadName)}`,
    `(${h.name})`,
    paintState(h.state ?? 'Running', o.colour),
    [h.reason, h.message].filter((x) => x !== undefined && x !== '').join(': '),
  ]);
}

function entryRow(e: HealthEntryView, renderRef: string | undefined, o: TreeOptions): string[] {
  const stale =
    renderRef !== undefined && e.assessedRenderRef !== undefined && e.assessedRenderRef !== renderRef;
  return [
    objectName(e),
    paintState(e.state, o.colour) + (stale ? ' (older render)' : ''),
    dash(e.rule),
    e.message,
  ];
}

export function treeLines(h: HealthResult, o: TreeOptions): string[] {
  const p = h.progress;
  const ref = p?.renderRef ?? h.renderRef;
  const out = [`Release ${h.metadata.namespace}/${h.metadata.name} · render ${shortRef(ref)}`];
  if (p !== undefined) out.push(progressLine(p, o.colour));
  const hooks = h.hooks.filter((x) => ref === undefined || x.renderRef === ref);
  const phase = (name: string) => hooks.filter((x) => x.phase === name);
  const pre = phase('PreSync');
  if (pre.length > 0) out.push('', 'PreSync hooks', ...branch(hookRows(pre, o)));
  const waves = [...new Set(h.entries.map((e) => e.wave))].sort((a, b) => a - b);
  const done = new Map((p?.waves.list ?? []).map((w) => [w.wave, w.done]));
  for (const w of waves) {
    const state = done.get(w) === true ? 'done' : p?.waves.current === w ? 'in progress' : '';
    out.push('', `Wave ${w}${state === '' ? '' : ` (${state})`}`);
    out.push(...branch(h.entries.filter((e) => e.wave === w).map((e) => entryRow(e, ref, o))));
  }
  if (waves.length === 0) out.push('', 'No objects recorded yet.');
  const post = phase('PostSync');
  if (post.length > 0) out.push('', 'PostSync hooks', ...branch(hookRows(post, o)));
  const other = hooks.filter((x) => x.phase !== 'PreSync' && x.phase !== 'PostSync');
  if (other.length > 0) out.push('', 'Other hooks', ...branch(hookRows(other, o)));
  return out;
}
