// The chaos suite's invariants, checked over what was recorded during a run and read at its end. Pure:
// each check maps one Release's record to the violations it finds (empty when the invariant held), so
// the checks themselves are table-tested (invariants.test.ts) and a failed run lists every broken
// promise, not only the first.
import { isDeepStrictEqual } from 'node:util';
import type { Release } from '../../src/api/types.ts';
import { rolloutTransition, shortRef } from '../../src/controller/release/decide/rollout/index.ts';
import { appliedObjects, expectedLive, FINAL_STEP, type LiveObject, STEPS, type Step } from './scenario.ts';
import type { Snapshot } from './watch.ts';

export const INVARIANTS = [
  'terminal state',
  'live objects',
  'lastHealthy on Succeeded',
  'transitions',
  'hook runs',
  'events',
  'verification',
  'process exits',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  readonly invariant: Invariant;
  /** namespace/name of the Release, or the process. */
  readonly subject: string;
  readonly detail: string;
}

/** One hook run as recorded: the Jobs created for a hook of one render, and their pods. */
export interface RecordedRun {
  readonly renderRef: string;
  readonly jobs: readonly { readonly uid: string; readonly pods: number }[];
}

export interface ReleaseRecord {
  /** namespace/name */
  readonly subject: string;
  /** The renderRef of each step as the driver saw it; absent when the step never showed a render. */
  readonly refs: Readonly<Partial<Record<Step, string>>>;
  /** Why the driver stopped early (a step's wait timed out, a render ended in the wrong state). */
  readonly driveFailure: string | undefined;
  readonly snapshots: readonly Snapshot[];
  /** The Release as read at the end. */
  readonly final: Release | undefined;
  /** The inventory's entries at the end: "Kind/name" and the render that last applied each. */
  readonly entries: readonly { readonly key: string; readonly renderRef: string | undefined }[];
  /** The objects of the kinds the renders use, live in the Release's namespace at the end. */
  readonly live: readonly LiveObject[];
  /** Events on the Release. */
  readonly events: readonly { readonly reason?: string; readonly message?: string }[];
  /** Runs of the PostSync hook. */
  readonly hookRuns: readonly RecordedRun[];
}

const TERMINAL: Record<Step, 'Succeeded' | 'RolledBack'> = {
  1: 'Succeeded',
  2: 'Succeeded',
  3: 'RolledBack',
};

/** Every invariant of one Release. */
export function checkRelease(r: ReleaseRecord): Violation[] {
  return [
    ...checkTerminal(r),
    ...checkLive(r),
    ...checkSucceededCarriesLastHealthy(r),
    ...checkTransitions(r),
    ...checkHookRuns(r),
    ...checkEvents(r),
    ...checkVerification(r),
  ];
}

const v = (invariant: Invariant, subject: string, detail: string): Violation => ({
  invariant,
  subject,
  detail,
});

/** Render 3 RolledBack to render 2, and render 2 is the last successful and last healthy render. */
export function checkTerminal(
  r: Pick<ReleaseRecord, 'subject' | 'refs' | 'driveFailure' | 'final'>,
): Violation[] {
  const out: Violation[] = [];
  if (r.driveFailure !== undefined) out.push(v('terminal state', r.subject, r.driveFailure));
  const st = r.final?.status;
  const want = r.refs[FINAL_STEP];
  if (st?.rollout?.state !== 'RolledBack' || st.rollout.renderRef !== r.refs[3])
    out.push(
      v(
        'terminal state',
        r.subject,
        `rollout is ${st?.rollout?.state}(${st?.rollout?.renderRef}), not RolledBack(render 3 ${r.refs[3]})`,
      ),
    );
  if (st?.lastHealthy?.renderRef !== want)
    out.push(
      v('terminal state', r.subject, `lastHealthy is ${st?.lastHealthy?.renderRef}, not render 2 ${want}`),
    );
  if (st?.lastSuccessful?.renderRef !== want)
    out.push(
      v(
        'terminal state',
        r.subject,
        `lastSuccessful is ${st?.lastSuccessful?.renderRef}, not render 2 ${want}`,
      ),
    );
  return out;
}

/** Live objects and inventory entries are render 2's exactly: nothing missing, no leftover, its contents. */
export function checkLive(r: Pick<ReleaseRecord, 'subject' | 'refs' | 'live' | 'entries'>): Violation[] {
  const ref = r.refs[FINAL_STEP];
  if (ref === undefined)
    return [v('live objects', r.subject, 'render 2 was never seen: nothing to compare with')];
  const out: Violation[] = [];
  const key = (o: LiveObject) => `${o.kind}/${o.name}`;
  const want = new Map(expectedLive(FINAL_STEP, ref).map((o) => [key(o), o]));
  const have = new Map(r.live.map((o) => [key(o), o]));
  for (const [k, o] of want) {
    const live = have.get(k);
    if (live === undefined) out.push(v('live objects', r.subject, `${k} missing`));
    else if (!isDeepStrictEqual(live.data, o.data))
      out.push(
        v('live objects', r.subject, `${k} data ${JSON.stringify(live.data)}, not ${JSON.stringify(o.data)}`),
      );
    else if (live.version !== o.version)
      out.push(v('live objects', r.subject, `${k} runs ${live.version}, not ${o.version}`));
  }
  for (const k of have.keys()) if (!want.has(k)) out.push(v('live objects', r.subject, `${k} left over`));
  const entries = new Map(r.entries.map((e) => [e.key, e.renderRef]));
  const wantEntries = appliedObjects(FINAL_STEP).map(key);
  for (const k of wantEntries) {
    if (!entries.has(k)) out.push(v('live objects', r.subject, `${k} is live but not in the inventory`));
    else if (entries.get(k) !== ref)
      out.push(
        v('live objects', r.subject, `inventory entry ${k} names render ${entries.get(k)}, not ${ref}`),
      );
  }
  for (const k of entries.keys())
    if (!wantEntries.includes(k)) out.push(v('live objects', r.subject, `inventory entry ${k} left over`));
  return out;
}

/** Every Succeeded status carried lastHealthy = the render that succeeded. */
export function checkSucceededCarriesLastHealthy(r: ReleaseRecord): Violation[] {
  return r.snapshots
    .filter((s) => s.rollout?.state === 'Succeeded' && s.lastHealthy?.renderRef !== s.rollout.renderRef)
    .map((s) =>
      v(
        'lastHealthy on Succeeded',
        r.subject,
        `Succeeded(${s.rollout?.renderRef}) written with lastHealthy ${s.lastHealthy?.renderRef}`,
      ),
    );
}

/**
 * Renders 1, 2, 3 in that order, each going Progressing → its terminal state (Succeeded, Succeeded,
 * RolledBack) and nothing else; every RolledBack status names render 2 as lastHealthy and lastSuccessful.
 * A state may be missing (a relist can skip it) but none may be out of order or unexpected.
 */
export function checkTransitions(r: ReleaseRecord): Violation[] {
  const out: Violation[] = [];
  const stepOf = new Map<string, Step>();
  for (const s of STEPS) {
    const ref = r.refs[s];
    if (ref !== undefined) stepOf.set(ref, s);
  }
  const seen: { step: Step; states: string[] }[] = [];
  for (const snap of r.snapshots) {
    const ro = snap.rollout;
    if (ro === undefined) continue;
    const step = stepOf.get(ro.renderRef);
    if (step === undefined) {
      out.push(
        v('transitions', r.subject, `rollout of a render no step applied: ${ro.state}(${ro.renderRef})`),
      );
      continue;
    }
    const cur = seen.at(-1);
    if (cur === undefined || cur.step !== step) seen.push({ step, states: [ro.state] });
    else if (cur.states.at(-1) !== ro.state) cur.states.push(ro.state);
    if (ro.state === 'RolledBack') {
      const want = r.refs[FINAL_STEP];
      if (snap.lastHealthy?.renderRef !== want || snap.lastSuccessful?.renderRef !== want)
        out.push(
          v(
            'transitions',
            r.subject,
            `RolledBack(${ro.renderRef}) with lastHealthy ${snap.lastHealthy?.renderRef} and lastSuccessful ${snap.lastSuccessful?.renderRef}, not render 2 ${want}`,
          ),
        );
    }
  }
  const order = seen.map((s) => s.step);
  if (order.some((s, i) => i > 0 && s <= (order[i - 1] ?? 0)))
    out.push(v('transitions', r.subject, `renders out of order: ${order.join(' → ')}`));
  for (const { step, states } of seen) {
    const allowed = ['Progressing', TERMINAL[step]];
    if (!isSubsequence(states, allowed) || states.at(-1) !== TERMINAL[step])
      out.push(
        v(
          'transitions',
          r.subject,
          `render ${step} went ${states.join(' → ')}, not Progressing → ${TERMINAL[step]}`,
        ),
      );
  }
  return out;
}

function isSubsequence(xs: readonly string[], of: readonly string[]): boolean {
  let i = 0;
  for (const x of xs) {
    while (i < of.length && of[i] !== x) i++;
    if (i === of.length) return false;
    i++;
  }
  return true;
}

/** The PostSync hook ran exactly once for renders 1 and 2 (one Job, one pod) and never for render 3. */
export function checkHookRuns(r: ReleaseRecord): Violation[] {
  const out: Violation[] = [];
  const byRef = new Map(r.hookRuns.map((h) => [h.renderRef, h]));
  for (const step of STEPS) {
    const ref = r.refs[step];
    if (ref === undefined) continue;
    const run = byRef.get(ref);
    byRef.delete(ref);
    if (step === 3) {
      if (run !== undefined)
        out.push(
          v('hook runs', r.subject, `the hook ran for the unhealthy render 3 (${run.jobs.length} Jobs)`),
        );
      continue;
    }
    if (run === undefined || run.jobs.length === 0) {
      out.push(v('hook runs', r.subject, `the hook never ran for render ${step}`));
      continue;
    }
    if (run.jobs.length > 1)
      out.push(
        v(
          'hook runs',
          r.subject,
          `the hook of render ${step} ran ${run.jobs.length} times (Jobs ${run.jobs.map((j) => j.uid).join(', ')})`,
        ),
      );
    for (const j of run.jobs)
      if (j.pods !== 1)
        out.push(v('hook runs', r.subject, `hook Job ${j.uid} of render ${step} made ${j.pods} pods`));
  }
  for (const ref of byRef.keys())
    out.push(v('hook runs', r.subject, `the hook ran for a render no step applied: ${ref}`));
  return out;
}

/**
 * Every transition the watch saw has its Event (reason Rollout<state>, message naming the new state and
 * render); each Event accounts for one transition.
 */
export function checkEvents(r: ReleaseRecord): Violation[] {
  const out: Violation[] = [];
  const unused = [...r.events];
  let prior: Snapshot | undefined;
  for (const snap of r.snapshots) {
    const t = rolloutTransition(prior?.rollout, snap.rollout, snap.lastHealthy);
    prior = snap;
    if (t === undefined) continue;
    const needle = `→ ${t.to} (${shortRef(t.toRenderRef)}`;
    const i = unused.findIndex((e) => e.reason === t.eventReason && (e.message ?? '').includes(needle));
    if (i < 0)
      out.push(
        v(
          'events',
          r.subject,
          `no ${t.eventReason} Event for the transition ${t.from} → ${t.to}(${t.toRenderRef}) seen at ${new Date(snap.at).toISOString()}`,
        ),
      );
    else unused.splice(i, 1);
  }
  return out;
}

/**
 * No rollout was ended by its verification: the traffic the checks read has no errors, so a
 * VerificationFailed (in a status or an Event) can only have come from a fault — a Prometheus killed
 * mid-soak must hold the soak, never fail it.
 */
export function checkVerification(r: Pick<ReleaseRecord, 'subject' | 'snapshots' | 'events'>): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const s of r.snapshots) {
    const ro = s.rollout;
    if (ro?.reason !== 'VerificationFailed' || seen.has(ro.renderRef)) continue;
    seen.add(ro.renderRef);
    out.push(
      v('verification', r.subject, `${ro.state}(${ro.renderRef}) by its verification: ${ro.message ?? ''}`),
    );
  }
  for (const e of r.events)
    if (e.reason === 'VerificationFailed')
      out.push(v('verification', r.subject, `a VerificationFailed Event: ${e.message ?? ''}`));
  return out;
}

/** Neither convoy process exited but by the suite's kills. */
export function checkExits(
  exits: readonly { readonly role: string; readonly identity: string; readonly code: number | string }[],
): Violation[] {
  return exits.map((e) => v('process exits', `${e.role} ${e.identity}`, `exited by itself (${e.code})`));
}
