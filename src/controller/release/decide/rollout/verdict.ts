// verdict(R): the controller's reading of the observer's per-object health for one render
// (docs/design.md#verdict, first matching row). The controller owns the deadline; the verdict only says
// Pending, Healthy or Unhealthy, and stays Pending while the observer is not live so a silent observer never
// causes a rollback.
import type { VerificationStatus } from '../../../../api/index.ts';
import { freshVerification } from '../../../../api/verification.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import {
  describeObject,
  type HookEntry,
  type HookPhase,
  type InventoryEntry,
  type ObjectRef,
  objectKey,
  shortRef,
} from './types.ts';

export const VerdictReason = {
  ObserverNotLive: 'ObserverNotLive',
  HookFailed: 'HookFailed',
  NotYetRecorded: 'NotYetRecorded',
  NotYetAssessed: 'NotYetAssessed',
  HealthUnknown: 'HealthUnknown',
  HookRunning: 'HookRunning',
  HookNotStarted: 'HookNotStarted',
  ObjectsUnhealthy: 'ObjectsUnhealthy',
  /** Every object Healthy; R's verification checks still run their soak (never a rollback). */
  Verifying: 'Verifying',
  /** A check of R's verification is past its inconclusiveLimit: the rollout holds for a person. */
  VerificationInconclusive: 'VerificationInconclusive',
  /** A check of R's verification is past its failureLimit: final for R. */
  VerificationFailed: 'VerificationFailed',
  /** Not a row of verdict(R): what deadlineVerdict makes of R's sync failing before anything applied. */
  SyncFailing: 'SyncFailing',
  Healthy: 'Healthy',
} as const;
export type VerdictReason = (typeof VerdictReason)[keyof typeof VerdictReason];

export type Verdict =
  | { readonly kind: 'Pending'; readonly reason: VerdictReason; readonly message: string }
  | { readonly kind: 'Unhealthy'; readonly reason: VerdictReason; readonly message: string }
  | { readonly kind: 'Healthy'; readonly reason: typeof VerdictReason.Healthy; readonly message: string };

export interface VerdictInput {
  readonly render: {
    readonly renderRef: string;
    /** Every object of R (not its hooks). */
    readonly objects: readonly ObjectRef[];
    /** The hooks R defines; only PreSync and PostSync count. */
    readonly hooks: readonly { readonly name: string; readonly phase: HookPhase }[];
  };
  readonly entries: readonly InventoryEntry[];
  readonly hooks: readonly HookEntry[];
  /** The observer's shard Lease was renewed within the lease duration. */
  readonly observerLive: boolean;
  /** spec.verification is set: R is Healthy only once its verification passed. */
  readonly verification?: VerificationOfR;
}

/** What verdict(R) reads of a verification (docs/design.md#verification). */
export interface VerificationOfR {
  /** The inventory's verification, whichever render it judged. */
  readonly status: VerificationStatus | undefined;
  /** R's rollout clock: measurements begun before it are of an earlier attempt of R. */
  readonly since: string | undefined;
  /** A person accepted R (convoy approve) while its verification was inconclusive. */
  readonly accepted: boolean;
}

/** Only PreSync and PostSync hooks decide the verdict; SyncFail and the delete hooks do not. */
function counts(phase: HookPhase | undefined): phase is HookPhase {
  return phase === 'PreSync' || phase === 'PostSync';
}
/** How many objects a message names before it says "and N more". */
const MAX_NAMED = 3;

type HookProgress = 'NotStarted' | 'Running' | 'Succeeded' | 'Failed';

/**
 * A terminal state counts only when it is not older than the entry's createdAt: a re-armed hook keeps the
 * previous run's state until the observer polls the new workload.
 */
function hookProgress(entry: HookEntry | undefined, renderRef: string): HookProgress {
  if (entry === undefined || entry.renderRef !== renderRef) return 'NotStarted';
  if (entry.state !== 'Succeeded' && entry.state !== 'Failed') return 'Running';
  if (entry.finishedAt === undefined) return 'Running';
  if (entry.createdAt !== undefined && Date.parse(entry.finishedAt) < Date.parse(entry.createdAt)) {
    return 'Running';
  }
  return entry.state;
}

function names<T extends ObjectRef>(
  objects: readonly T[],
  detail: (o: T) => string = describeObject,
): string {
  const shown = objects.slice(0, MAX_NAMED).map(detail).join('; ');
  return objects.length > MAX_NAMED ? `${shown}; and ${objects.length - MAX_NAMED} more` : shown;
}

/** A verdict that is not Healthy (Healthy has one reason, and one place: the last row of verdict). */
function notHealthy(kind: 'Pending' | 'Unhealthy', reason: VerdictReason, message: string): Verdict {
  return kind === 'Pending' ? { kind, reason, message } : { kind, reason, message };
}

export function verdict(input: VerdictInput): Verdict {
  const R = input.render.renderRef;
  const short = shortRef(R);
  const total = input.render.objects.length;
  /** "n of total objects …" for the rows that name the objects holding R back. */
  const some = (n: number, what: string) => `${n} of ${total} objects ${what}`;
  const hookOf = (h: { readonly phase: HookPhase; readonly name: string }, what: string) =>
    `${h.phase} hook ${h.name} of ${short} ${what}`;

  if (!input.observerLive) {
    const message = `observer not live: health of ${short} cannot be assessed`;
    return notHealthy('Pending', VerdictReason.ObserverNotLive, message);
  }

  // Hooks of R: the ones R declares plus any PreSync/PostSync entry armed for R.
  const hookByName = new Map(input.hooks.map((h) => [h.name, h]));
  const hookNames = new Map<string, HookPhase>();
  for (const h of input.render.hooks) if (counts(h.phase)) hookNames.set(h.name, h.phase);
  for (const h of input.hooks) {
    if (h.renderRef === R && counts(h.phase)) hookNames.set(h.name, h.phase);
  }
  const hooks = [...hookNames].map(([name, phase]) => ({
    name,
    phase,
    progress: hookProgress(hookByName.get(name), R),
  }));

  const failed = hooks.find((h) => h.progress === 'Failed');
  if (failed !== undefined) {
    const entry = hookByName.get(failed.name);
    const why = [entry?.reason, entry?.message].filter((s) => s !== undefined && s !== '').join(': ');
    const message = hookOf(failed, `failed${why === '' ? '' : `: ${why}`}`);
    return notHealthy('Unhealthy', VerdictReason.HookFailed, message);
  }

  // A failed verification is final for R, whatever its objects do now.
  const verification = freshVerification(input.verification?.status, R, input.verification?.since);
  if (verification?.phase === 'Failed') {
    const message = `verification of ${short} failed: ${verification.message ?? verification.reason ?? ''}`;
    return notHealthy('Unhealthy', VerdictReason.VerificationFailed, message);
  }

  // Entries of objects that left the render are leftovers awaiting prune: they say nothing about R.
  const entryByKey = new Map(input.entries.map((e) => [objectKey(e), e]));
  const ofR = input.render.objects.map((o) => ({ ref: o, entry: entryByKey.get(objectKey(o)) }));

  const unrecorded = ofR.filter((x) => x.entry?.renderRef !== R);
  // The waves wait for a PreSync hook that runs: what holds R is the hook (its deadline counts).
  const preSync = hooks.find((h) => h.phase === 'PreSync' && h.progress === 'Running');
  if (unrecorded.length > 0 && preSync !== undefined) {
    const waiting = some(unrecorded.length, `not yet applied for ${short}`);
    return notHealthy(
      'Pending',
      VerdictReason.HookRunning,
      `${hookOf(preSync, 'has not finished')}; ${waiting}`,
    );
  }
  if (unrecorded.length > 0) {
    const message = some(
      unrecorded.length,
      `not yet applied for ${short}: ${names(unrecorded.map((x) => x.ref))}`,
    );
    return notHealthy('Pending', VerdictReason.NotYetRecorded, message);
  }
  const recorded = ofR.flatMap((x) => (x.entry === undefined ? [] : [x.entry]));

  const unassessed = recorded.filter((e) => e.assessedRenderRef !== R || e.state === undefined);
  if (unassessed.length > 0) {
    const message = some(unassessed.length, `not yet assessed for ${short}: ${names(unassessed)}`);
    return notHealthy('Pending', VerdictReason.NotYetAssessed, message);
  }

  const unknown = recorded.filter((e) => e.state === 'Unknown');
  if (unknown.length > 0) {
    const message = some(unknown.length, `of ${short} have unknown health: ${names(unknown, withMessage)}`);
    return notHealthy('Pending', VerdictReason.HealthUnknown, message);
  }

  const running = hooks.find((h) => h.progress === 'Running');
  if (running !== undefined) {
    return notHealthy('Pending', VerdictReason.HookRunning, hookOf(running, 'has not finished'));
  }

  const unhealthy = recorded.filter((e) => e.state === 'Progressing' || e.state === 'Degraded');
  if (unhealthy.length > 0) {
    const message = some(unhealthy.length, `of ${short} not healthy: ${names(unhealthy, withMessage)}`);
    return notHealthy('Unhealthy', VerdictReason.ObjectsUnhealthy, message);
  }

  // Every object is Healthy for R; a declared hook not yet armed (PostSync waits for this moment) keeps
  // the verdict Pending, so R cannot succeed before its PostSync hooks have run.
  const notStarted = hooks.find((h) => h.progress === 'NotStarted');
  if (notStarted !== undefined) {
    return notHealthy('Pending', VerdictReason.HookNotStarted, hookOf(notStarted, 'has not started'));
  }

  const hookNote = hooks.length > 0 ? ` and ${hooks.length} hooks succeeded` : '';
  const healthy = `${total} of ${total} objects of ${short} healthy${hookNote}`;
  if (input.verification !== undefined) {
    const v = verifiedNote(verification, input.verification.accepted);
    if (v.kind !== 'Healthy') return notHealthy('Pending', v.reason, `${healthy}; ${v.message}`);
    return { kind: 'Healthy', reason: VerdictReason.Healthy, message: `${healthy}; ${v.message}` };
  }
  return {
    kind: 'Healthy',
    reason: VerdictReason.Healthy,
    message: `${total} of ${total} objects of ${short} healthy${hookNote}`,
  };
}

/** The verification rows of verdict(R), once every object of R is Healthy. */
function verifiedNote(
  st: VerificationStatus | undefined,
  accepted: boolean,
):
  | { readonly kind: 'Healthy'; readonly message: string }
  | { readonly kind: 'Pending'; readonly reason: VerdictReason; readonly message: string } {
  if (st === undefined) {
    return { kind: 'Pending', reason: VerdictReason.Verifying, message: 'verification not started' };
  }
  switch (st.phase) {
    case 'Passed':
      return { kind: 'Healthy', message: 'verification passed' };
    case 'Running':
      return {
        kind: 'Pending',
        reason: VerdictReason.Verifying,
        message: `verifying: ${st.message ?? 'soak running'}`,
      };
    case 'Inconclusive':
      if (accepted)
        return { kind: 'Healthy', message: `verification inconclusive, accepted: ${st.message ?? ''}` };
      return {
        kind: 'Pending',
        reason: VerdictReason.VerificationInconclusive,
        message: `verification inconclusive, waiting for a person (convoy approve or convoy rollback): ${st.message ?? ''}`,
      };
    case 'Failed': // verdict returned VerificationFailed before the object rows
      return { kind: 'Pending', reason: VerdictReason.VerificationFailed, message: st.message ?? '' };
    default:
      return assertNever(st.phase);
  }
}

function withMessage(e: InventoryEntry): string {
  const state = e.state === undefined ? '' : ` ${e.state}`;
  const msg = e.message === undefined || e.message === '' ? '' : `: ${e.message}`;
  return `${describeObject(e)}${state}${msg}`;
}
