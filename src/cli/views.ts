// What `get`, `status`, `health` and `history` print, as lines built from the Release, its inventory
// and the API's HealthResult/HistoryResult. Pure: a command reads, calls one of these, and writes.
import type { Condition, InventoryEntry, InventoryHook, Release, ReleaseInventory } from '../api/types.ts';
import type { HealthResult, HistoryResult } from '../server/views.ts';
import type { StatusSelector } from './args.ts';
import { age, dash, paintState, shortRef, table } from './format.ts';

export interface ViewOptions {
  readonly now: Date;
  readonly colour: boolean;
}

const condition = (r: Release, type: string): Condition | undefined =>
  r.status?.conditions?.find((c) => c.type === type);

/** "ns/name" of a Release, for messages. */
export function releaseName(r: Pick<Release, 'metadata'>): string {
  return `${r.metadata.namespace ?? ''}/${r.metadata.name ?? ''}`;
}

export function clusterOf(r: Release): string {
  return r.spec.cluster?.name ?? 'in-cluster';
}

export function revisionOf(r: Release): string | undefined {
  return r.status?.currentRender?.revision ?? r.status?.lastAttempted?.revision;
}

function rolloutWord(r: Release): string {
  const state = r.status?.rollout?.state;
  if (r.spec.pin !== undefined) return state === undefined ? 'Pinned' : `${state} (pinned)`;
  return state ?? '-';
}

/** The rows of `convoy get`: NAMESPACE (with -A), NAME, CLUSTER, REVISION, ROLLOUT, HEALTHY, AGE. */
export function releaseTable(releases: readonly Release[], allNamespaces: boolean, o: ViewOptions): string[] {
  const head = ['NAME', 'CLUSTER', 'REVISION', 'ROLLOUT', 'HEALTHY', 'AGE'];
  const rows = [...releases]
    .sort(
      (a, b) =>
        (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    )
    .map((r) => {
      const healthy = condition(r, 'Healthy')?.status;
      const row = [
        r.metadata.name ?? '',
        clusterOf(r),
        dash(revisionOf(r)),
        paintState(rolloutWord(r), o.colour),
        healthy === undefined ? '-' : paintState(healthy, o.colour),
        age(r.metadata.creationTimestamp, o.now),
      ];
      return allNamespaces ? [r.metadata.namespace ?? '', ...row] : row;
    });
  return table([allNamespaces ? ['NAMESPACE', ...head] : head, ...rows]);
}

function sourceLine(r: Release): string {
  const s = r.spec.source;
  if (s.git !== undefined) {
    const ref = s.git.ref?.branch ?? s.git.ref?.tag ?? s.git.ref?.commit ?? 'default branch';
    return `git ${s.git.url} @ ${ref}${s.git.path ? ` path ${s.git.path}` : ''}`;
  }
  if (s.oci !== undefined) return `oci ${s.oci.url}${s.oci.ref ? ` @ ${s.oci.ref}` : ''}`;
  if (s.inline !== undefined) return 'inline manifests';
  return '-';
}

function policyLine(r: Release): string {
  const p = r.spec.syncPolicy;
  const parts: string[] = [p?.mode ?? 'Auto'];
  if (p?.interval !== undefined) parts.push(`every ${p.interval}`);
  parts.push(p?.prune === false ? 'no prune' : 'prune');
  if (p?.selfHeal === true) parts.push('self-heal');
  const f = r.spec.failurePolicy;
  parts.push(
    f === undefined
      ? 'no rollout (no failurePolicy)'
      : `rollout deadline ${f.deadline}, rollback ${f.rollback ?? 'OnFailure'}`,
  );
  return parts.join(', ');
}

/** The render whose progress `status` and `watch` describe: the rollout's, else the last attempted. */
export function focusRender(r: Release): string | undefined {
  return (
    r.status?.rollout?.renderRef ?? r.status?.lastAttempted?.renderRef ?? r.status?.currentRender?.renderRef
  );
}

interface WaveRow {
  readonly wave: number;
  readonly startedAt?: string;
  readonly completedAt?: string;
  readonly objects: number;
  readonly healthy: number;
}

/** Waves of render `ref`: status.waves joined with the inventory entries recorded for that render. */
export function wavesOf(r: Release, inv: ReleaseInventory | undefined, ref: string | undefined): WaveRow[] {
  if (ref === undefined) return [];
  const byWave = new Map<number, WaveRow>();
  for (const w of r.status?.waves ?? []) {
    if (w.renderRef !== ref) continue;
    byWave.set(w.wave, {
      wave: w.wave,
      startedAt: w.startedAt,
      ...(w.completedAt === undefined ? {} : { completedAt: w.completedAt }),
      objects: 0,
      healthy: 0,
    });
  }
  for (const e of inv?.entries ?? []) {
    if (e.renderRef !== ref) continue;
    const wave = e.wave ?? 0;
    const row = byWave.get(wave) ?? { wave, objects: 0, healthy: 0 };
    byWave.set(wave, {
      ...row,
      objects: row.objects + 1,
      healthy: row.healthy + (isHealthyFor(e, ref) ? 1 : 0),
    });
  }
  return [...byWave.values()].sort((a, b) => a.wave - b.wave);
}

export function isHealthyFor(e: InventoryEntry, ref: string): boolean {
  return e.state === 'Healthy' && e.assessedRenderRef === ref;
}

export function hooksOf(inv: ReleaseInventory | undefined, ref: string | undefined): InventoryHook[] {
  return (inv?.hooks ?? []).filter((h) => ref === undefined || h.renderRef === ref);
}

function hookTable(hooks: readonly InventoryHook[], o: ViewOptions): string[] {
  return table([
    ['NAME', 'PHASE', 'STATE', 'WORKLOAD', 'CREATED', 'MESSAGE'],
    ...hooks.map((h) => [
      h.name,
      dash(h.phase),
      paintState(h.state ?? 'Running', o.colour),
      `${h.kind ?? ''}${h.kind ? '/' : ''}${dash(h.workloadName)}`,
      h.createdAt === undefined ? '-' : age(h.createdAt, o.now),
      [h.reason, h.message].filter((x) => x !== undefined && x !== '').join(': '),
    ]),
  ]);
}

function conditionTable(conditions: readonly Condition[], o: ViewOptions): string[] {
  return table([
    ['TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'],
    ...conditions.map((c) => [
      c.type,
      paintState(c.status, o.colour),
      dash(c.reason),
      age(c.lastTransitionTime, o.now),
      c.message ?? '',
    ]),
  ]);
}

const indent = (lines: readonly string[]) => lines.map((l) => `  ${l}`);

/** `convoy status NAME`. */
export function statusLines(r: Release, inv: ReleaseInventory | undefined, o: ViewOptions): string[] {
  const s = r.status ?? {};
  const out: string[] = [];
  const field = (k: string, v: string) => out.push(`${`${k}:`.padEnd(17)}${v}`);
  field('Release', releaseName(r));
  field('Cluster', clusterOf(r));
  field('Source', sourceLine(r));
  field('Policy', policyLine(r));
  if (r.spec.pin !== undefined) {
    field(
      'Pinned',
      `${r.spec.pin.renderRef} (the source is not followed; convoy unpin ${r.metadata.name} to follow it)`,
    );
  }
  const gen = r.metadata.generation ?? 0;
  if (s.observedGeneration !== undefined && s.observedGeneration < gen) {
    field('Observed', `generation ${s.observedGeneration} of ${gen}: the controller has not caught up yet`);
  }
  field(
    'Current',
    s.currentRender === undefined
      ? '- (not rendered yet)'
      : `${s.currentRender.renderRef} revision ${s.currentRender.revision}`,
  );
  const ro = s.rollout;
  if (ro === undefined) {
    field('Rollout', '-');
  } else {
    const when =
      ro.finishedAt !== undefined
        ? `finished ${age(ro.finishedAt, o.now)} ago`
        : ro.startedAt !== undefined
          ? `started ${age(ro.startedAt, o.now)} ago`
          : 'not started (held by a gate)';
    field(
      'Rollout',
      `${paintState(ro.state, o.colour)} ${shortRef(ro.renderRef)}${ro.revision ? ` revision ${ro.revision}` : ''}, ${when}`,
    );
    const why = [ro.reason, ro.message].filter((x) => x !== undefined && x !== '').join(': ');
    if (why !== '') out.push(`${' '.repeat(17)}${why}`);
  }
  const la = s.lastAttempted;
  if (la !== undefined) {
    const why = [la.reason, la.message].filter((x) => x !== undefined && x !== '').join(': ');
    field(
      'Attempted',
      `${shortRef(la.renderRef)} revision ${la.revision}, ${age(la.time, o.now)} ago, ${la.applied ? 'applied' : 'not applied'}${why === '' ? '' : ` (${why})`}`,
    );
  }
  for (const [k, v] of [
    ['Successful', s.lastSuccessful],
    ['Healthy', s.lastHealthy],
  ] as const) {
    if (v !== undefined)
      field(
        `Last ${k.toLowerCase()}`,
        `${shortRef(v.renderRef)} revision ${v.revision}, ${age(v.time, o.now)} ago`,
      );
  }
  const hs = s.healthSummary;
  if (hs !== undefined) {
    field(
      'Health',
      `${hs.healthy}/${hs.total} healthy, ${hs.progressing} progressing, ${hs.degraded} degraded, ${hs.unknown} unknown`,
    );
  }
  const ds = s.driftSummary;
  if (ds !== undefined) field('Drift', `${ds.drifted}/${ds.total} drifted`);

  const ref = focusRender(r);
  const waves = wavesOf(r, inv, ref);
  out.push('', `Waves (render ${shortRef(ref)}):`);
  if (waves.length === 0) out.push('  none yet');
  else
    out.push(
      ...indent(
        table([
          ['WAVE', 'STARTED', 'COMPLETED', 'HEALTHY'],
          ...waves.map((w) => [
            String(w.wave),
            w.startedAt === undefined ? '-' : `${age(w.startedAt, o.now)} ago`,
            w.completedAt === undefined ? '-' : `${age(w.completedAt, o.now)} ago`,
            `${w.healthy}/${w.objects}`,
          ]),
        ]),
      ),
    );
  const hooks = hooksOf(inv, ref);
  out.push('', 'Hooks:');
  if (hooks.length === 0) out.push('  none');
  else out.push(...indent(hookTable(hooks, o)));
  out.push('', 'Conditions:');
  const conds = s.conditions ?? [];
  if (conds.length === 0) out.push('  none yet');
  else out.push(...indent(conditionTable(conds, o)));
  return out;
}

/** "apps/Deployment ns/web", like the health API names an object. */
export function objectName(e: { group: string; kind: string; namespace: string; name: string }): string {
  const gk = e.group === '' ? e.kind : `${e.group}/${e.kind}`;
  return `${gk} ${e.namespace === '' ? '' : `${e.namespace}/`}${e.name}`;
}

/** `convoy health NAME`. */
export function healthLines(h: HealthResult, o: ViewOptions): string[] {
  const c = h.healthy;
  const sum = h.summary;
  const out = [
    `Release:      ${h.metadata.namespace}/${h.metadata.name}`,
    `Render:       ${dash(h.renderRef)}`,
    `Healthy:      ${c === undefined ? '- (not assessed yet)' : `${paintState(c.status, o.colour)} (${c.reason})${c.message ? `: ${c.message}` : ''}`}`,
    `Objects:      ${sum.healthy}/${sum.total} healthy, ${sum.progressing} progressing, ${sum.degraded} degraded, ${sum.unknown} unknown`,
    '',
  ];
  if (h.entries.length === 0) out.push('No objects recorded yet.');
  else {
    const withRule = h.entries.some((e) => e.rule !== undefined);
    out.push(
      ...table([
        ['WAVE', 'OBJECT', 'STATE', ...(withRule ? ['RULE'] : []), 'MESSAGE'],
        ...h.entries.map((e) => {
          const stale =
            h.renderRef !== undefined &&
            e.assessedRenderRef !== undefined &&
            e.assessedRenderRef !== h.renderRef;
          return [
            String(e.wave),
            objectName(e),
            paintState(e.state, o.colour) + (stale ? ' (older render)' : ''),
            ...(withRule ? [dash(e.rule)] : []),
            e.message,
          ];
        }),
      ]),
    );
  }
  if (h.hooks.length > 0) {
    out.push('', 'Hooks:', ...indent(hookTable(h.hooks as InventoryHook[], o)));
  }
  return out;
}

/** `convoy history NAME`: newest first, with what each render is to the Release now. */
export function historyLines(h: HistoryResult, r: Release, o: ViewOptions): string[] {
  const s = r.status;
  const notes = (ref: string): string => {
    const n: string[] = [];
    if (s?.currentRender?.renderRef === ref) n.push('current');
    if (s?.rollout?.renderRef === ref) n.push(`rollout ${s.rollout.state}`);
    if (s?.lastHealthy?.renderRef === ref) n.push('last healthy');
    if (r.spec.pin?.renderRef === ref) n.push('pinned');
    return n.join(', ');
  };
  const rows = [...h.history]
    .reverse()
    .map((e) => [
      e.renderRef,
      e.revision,
      `${age(e.appliedAt, o.now)} ago`,
      e.stored ? 'yes' : 'no',
      notes(e.renderRef),
    ]);
  const out =
    rows.length === 0
      ? ['No render applied yet.']
      : table([['RENDER', 'REVISION', 'APPLIED', 'STORED', 'NOTES'], ...rows]);
  const inHistory = new Set(h.history.map((e) => e.renderRef));
  const others = h.stored.filter((m) => !inHistory.has(m.renderRef));
  if (others.length > 0) {
    out.push(
      '',
      'Also in the render store:',
      ...indent(
        table([
          ['RENDER', 'REVISION', 'STORED', 'REFERENCED BY'],
          ...others.map((m) => [
            m.renderRef,
            dash(m.revision),
            m.storedAt === undefined ? '-' : `${age(m.storedAt, o.now)} ago`,
            m.referencedBy.join(', ') || '-',
          ]),
        ]),
      ),
    );
  }
  if (rows.length > 0) out.push('', `To apply one of these again: convoy pin ${h.metadata.name} RENDER`);
  return out;
}

/** Whether a Release is suspended (spec.suspend): convoy neither syncs nor rolls it back. */
export function isSuspended(r: Release): boolean {
  return (r.spec as { suspend?: unknown }).suspend === true;
}

/** `get --status-selector`: every given key must match (condition statuses as True/False/Unknown). */
export function matchesStatus(r: Release, sel: StatusSelector): boolean {
  const status = (type: string) => condition(r, type)?.status ?? 'Unknown';
  if (sel.ready !== undefined && status('Ready') !== sel.ready) return false;
  if (sel.healthy !== undefined && status('Healthy') !== sel.healthy) return false;
  if (
    sel.rollout !== undefined &&
    (r.status?.rollout?.state ?? '-').toLowerCase() !== sel.rollout.toLowerCase()
  ) {
    return false;
  }
  if (sel.suspended !== undefined && isSuspended(r) !== sel.suspended) return false;
  return true;
}
