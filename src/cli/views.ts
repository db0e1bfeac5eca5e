// What `get`, `status`, `health` and `history` print, as lines built from the Release, its inventory
// and the API's HealthResult/HistoryResult. Pure: a command reads, calls one of these, and writes.

import { shortRevision } from '../api/revision.ts';
import type { Condition, InventoryHook, Release, ReleaseInventory } from '../api/types.ts';
import { freshVerification } from '../api/verification.ts';
import { oneLine } from '../controller/release/decide/status-message.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import { progressSummary } from '../server/progress.ts';
import { type ReleaseState, releaseState } from '../server/release-state.ts';
import type { HealthResult, HistoryResult } from '../server/views.ts';
import type { StatusSelector } from './args.ts';
import { age, byNamespaceName, dash, paint, paintState, shortRef, styleOfTone, table } from './format.ts';
import { progressLine } from './watch-view.ts';

export interface ViewOptions {
  readonly now: Date;
  readonly colour: boolean;
}

const condition = (r: Release, type: string): Condition | undefined =>
  r.status?.conditions?.find((c) => c.type === type);

/** "ns/name" of a Release, for messages. */
export function releaseName(r: Pick<Release, 'metadata'>): string {
  return `${namespaceOf(r)}/${nameOf(r)}`;
}

export function clusterOf(r: Release): string {
  return r.spec.cluster?.name ?? 'in-cluster';
}

export function revisionOf(r: Release): string | undefined {
  return r.status?.currentRender?.revision ?? r.status?.lastAttempted?.revision;
}

/** The REVISION column: status.revision as the controller wrote it (what kubectl shows), else the same shortening. */
export function shortRevisionOf(r: Release): string | undefined {
  const full = revisionOf(r);
  return r.status?.revision ?? (full === undefined ? undefined : shortRevision(full));
}

/** The STATE column: releaseState's one state (the web UI's and the API's word), "(pinned)" under a pin. */
function stateWord(state: ReleaseState): string {
  return state.pinned ? `${state.state} (pinned)` : state.state;
}

/** The HEALTH column: "-" when nothing is assessed (no healthAssessment), never a bare True. */
function healthColumn(state: ReleaseState): string {
  return state.health === 'NotAssessed' ? '-' : state.health;
}

/**
 * The rows of `convoy get`: NAMESPACE (with -A), NAME, STATE, HEALTH, REVISION, AGE, MESSAGE. STATE
 * and HEALTH are releaseState's, the words the web UI and the API's health view show, so a Failed
 * rollout is never beside a Ready True and awaiting approval is not a failure.
 */
export function releaseTable(releases: readonly Release[], allNamespaces: boolean, o: ViewOptions): string[] {
  const head = ['NAME', 'STATE', 'HEALTH', 'REVISION', 'AGE', 'MESSAGE'];
  const rows = [...releases].sort(byNamespaceName).map((r) => {
    const state = releaseState(r);
    const row = [
      nameOf(r),
      paint(styleOfTone(state.tone), stateWord(state), o.colour),
      paintState(healthColumn(state), o.colour),
      dash(shortRevisionOf(r)),
      age(r.metadata.creationTimestamp, o.now),
      r.status?.message ?? '',
    ];
    return allNamespaces ? [namespaceOf(r), ...row] : row;
  });
  return table([allNamespaces ? ['NAMESPACE', ...head] : head, ...rows]);
}

function sourceLine(r: Release): string {
  const s = r.spec.source;
  if (s.git !== undefined) {
    const ref = s.git.ref?.branch ?? s.git.ref?.tag ?? s.git.ref?.commit ?? 'default branch';
    return `git ${s.git.url} @ ${ref}${s.git.path ? ` path ${s.git.path}` : ''}`;
  }
  if (s.oci !== undefined) {
    const r = s.oci.ref;
    const at = r?.digest ?? (r?.semver === undefined ? (r?.tag ?? 'latest') : `semver ${r.semver}`);
    return `oci ${s.oci.url} @ ${at}`;
  }
  if (s.chart !== undefined)
    return `chart ${s.chart.name} ${s.chart.version ?? '(newest)'} from ${s.chart.url}`;
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
      `${shortRef(r.spec.pin.renderRef)} (the source is not followed; convoy unpin ${r.metadata.name} to follow it)`,
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
      : `${shortRef(s.currentRender.renderRef)} revision ${s.currentRender.revision}`,
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

  const p = progressSummary(r, inv);
  field('Progress', progressLine(p, o.colour));
  out.push('', `Waves (render ${shortRef(p.renderRef)}):`);
  if (p.waves.list.length === 0) out.push('  none yet');
  else
    out.push(
      ...indent(
        table([
          ['WAVE', 'STARTED', 'COMPLETED', 'HEALTHY'],
          ...p.waves.list.map((w) => [
            String(w.wave),
            w.startedAt === undefined ? '-' : `${age(w.startedAt, o.now)} ago`,
            w.completedAt === undefined ? (w.done ? 'yes' : '-') : `${age(w.completedAt, o.now)} ago`,
            `${w.healthy}/${w.objects}`,
          ]),
        ]),
      ),
    );
  out.push('', 'Hooks:');
  const ready = condition(r, 'Ready');
  if (p.hooks.list.length > 0) out.push(...indent(hookTable(p.hooks.list, o)));
  else if (ready?.reason === 'WaitingForHook')
    out.push(`  none started yet (${ready.message ?? 'waiting for hooks'})`);
  else out.push('  none');
  if (r.spec.verification !== undefined) out.push('', ...verificationLines(r, inv, o));
  out.push('', 'Conditions:');
  const conds = s.conditions ?? [];
  if (conds.length === 0) out.push('  none yet');
  else out.push(...indent(conditionTable(conds, o)));
  return out;
}

/**
 * The rollout's verification (docs/rollouts.md#verification): its phase and soak, then one row per check
 * with its counts and last value. Only measurements of the rollout's render in this attempt count.
 */
export function verificationLines(r: Release, inv: ReleaseInventory | undefined, o: ViewOptions): string[] {
  const ro = r.status?.rollout;
  const st = ro === undefined ? undefined : freshVerification(inv?.verification, ro.renderRef, ro.startedAt);
  const soak = r.spec.verification?.soak ?? '';
  if (st === undefined)
    return [`Verification (soak ${soak}):`, '  not started: the soak begins once every object is Healthy'];
  const head = `Verification (soak ${soak}): ${st.phase}, started ${age(st.startedAt, o.now)} ago`;
  const rows = (st.checks ?? []).map((c) => {
    const last = c.measurements?.[c.measurements.length - 1];
    return [
      c.name,
      c.phase,
      `${c.successful}/${c.failed}/${c.inconclusive}`,
      last === undefined ? '-' : `${last.value ?? last.phase} (${age(last.at, o.now)} ago)`,
      c.condition ?? '',
    ];
  });
  const lines = [head];
  if (st.message !== undefined && st.message !== '') lines.push(`  ${st.message}`);
  if (rows.length > 0)
    lines.push(
      ...indent(table([['CHECK', 'PHASE', 'OK/FAILED/INCONCL.', 'LAST VALUE', 'CONDITION'], ...rows])),
    );
  return lines;
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
    // An API server older than this CLI does not send the progress.
    ...(h.progress === undefined ? [] : [`Progress:     ${progressLine(h.progress, o.colour)}`]),
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
    if (s?.lastHealthy?.renderRef === ref) n.push('last healthy');
    if (r.spec.pin?.renderRef === ref) n.push('pinned');
    return n.join(', ');
  };
  // The running rollout is on the newest entry of its render; ended ones are recorded on the entry.
  const running = s?.rollout?.state === 'Progressing' ? s.rollout.renderRef : undefined;
  const runningAt = h.history.findLastIndex((e) => e.renderRef === running);
  const f = h.failedAttempt;
  // The failed attempt's own row says it with its message: its history entry, the newest, is not repeated.
  const last = h.history.at(-1);
  const shown =
    f !== undefined && last?.appliedAt === undefined && last?.renderRef === f.renderRef
      ? h.history.slice(0, -1)
      : h.history;
  const rows = shown
    .map((e, i) => [
      shortRef(e.renderRef),
      e.revision,
      e.appliedAt !== undefined
        ? `${age(e.appliedAt, o.now)} ago`
        : `not applied${e.attemptedAt === undefined ? '' : ` (${age(e.attemptedAt, o.now)} ago)`}`,
      paintState(e.result ?? (i === runningAt ? 'Progressing' : '-'), o.colour) +
        (e.reason === undefined ? '' : ` (${e.reason})`),
      e.stored ? 'yes' : 'no',
      e.triggeredBy,
      notes(e.renderRef),
    ])
    .reverse();
  if (f !== undefined) {
    const stored =
      f.renderRef !== undefined && h.stored.some((m) => m.renderRef === f.renderRef && m.complete);
    rows.unshift([
      shortRef(f.renderRef),
      dash(f.revision),
      'not applied',
      `${paintState('Failed', o.colour)} (${f.reason})`,
      f.renderRef === undefined ? '-' : stored ? 'yes' : 'no',
      f.triggeredBy ?? '-',
      `${f.time === undefined ? '' : `${age(f.time, o.now)} ago: `}${oneLine(f.message ?? '')}`,
    ]);
  }
  const out =
    rows.length === 0
      ? ['No render applied yet.']
      : table([['RENDER', 'REVISION', 'APPLIED', 'RESULT', 'STORED', 'TRIGGERED BY', 'NOTES'], ...rows]);
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
            shortRef(m.renderRef),
            dash(m.revision),
            m.storedAt === undefined ? '-' : `${age(m.storedAt, o.now)} ago`,
            m.referencedBy.join(', ') || '-',
          ]),
        ]),
      ),
    );
  }
  if (h.history.length > 0) out.push('', `To apply one of these again: convoy pin ${h.metadata.name} RENDER`);
  return out;
}

/** Whether a Release is suspended (spec.suspend): convoy neither syncs nor rolls it back. */
export function isSuspended(r: Release): boolean {
  return r.spec.suspend === true;
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
