// planFleet: the one decision of the fleet controller (docs/design.md#fleets). Given the set's train,
// its member clusters and what their Releases say, it returns the writes to make and the status to show.
// Pure; the executor (executor.ts) does the I/O.
//
// A train carries one revision through the waves in ascending order. A wave starts only when every
// member of the lower waves Succeeded this very train — their checks passed, when they verify — and the
// lower wave soaked its bake (strategy.soak, or its own strategy.waves[].soak); inside a wave at most
// maxParallel members run it at once. A member given the train that ends Failed or RolledBack stops the
// train: no higher wave gets it, and with fleetRollback every member that took it is pinned to the healthy
// render it ran before. A paused Cluster holds (and so holds the waves above it); a member with no
// Release yet first gets the fleet's good revision, never an untested one. A member that cannot go on —
// its Release Stalled or Ready=False for a failure, its Cluster not ready, or its checks inconclusive —
// is Stalled: the train holds at its wave, and the set's Ready=False names the member, the cluster and
// the cause (the check, for verification), until the cause is fixed (or a person accepts or rolls back
// an inconclusive render) and the train goes on. A selector that matches nothing is NoClusters.
import type { FleetMemberStatus, FleetTrain } from '../../api/types.ts';
import { type Outcome, outcomeOf, type ReleaseView } from './observe.ts';

export type PlanMember = {
  readonly cluster: string;
  /** Its Release's name (memberReleaseName), the same before the Release exists as after. */
  readonly name: string;
  readonly wave: number;
  readonly paused: boolean;
  /** Why the train's inputs cannot be filled in for this cluster (member-spec.ts). */
  readonly inputError: string | undefined;
  /** Its Cluster's Ready=False, as "<reason>: <message>" (members.ts). */
  readonly clusterNotReady: string | undefined;
  readonly release: ReleaseView | undefined;
  /** Its row of the set's last status. */
  readonly prior: FleetMemberStatus | undefined;
};

export type PlanInput = {
  readonly now: string;
  readonly nowMs: number;
  readonly revision: string;
  readonly trainId: string;
  readonly priorTrain: FleetTrain | undefined;
  readonly goodRevision: string | undefined;
  readonly maxParallel: number | undefined;
  readonly soakMs: number;
  /** The bake of the waves that set their own (strategy.waves[].soak); the others take soakMs. */
  readonly waveSoakMs: ReadonlyMap<number, number>;
  readonly fleetRollback: boolean;
  readonly members: readonly PlanMember[];
  /** Owned Releases whose cluster the set no longer selects. */
  readonly strays: readonly string[];
  /** Why there are no members, when there are none ("spec.clusterSelector {…} matches no Cluster …"). */
  readonly noMembers: string;
};

/** Why a Progressing train cannot go on by itself: the set's Ready=False. */
export type FleetHold = {
  readonly reason: 'NoClusters' | 'MemberStalled' | 'ClusterNotReady' | 'VerificationInconclusive';
  readonly message: string;
};

export type FleetAction =
  | { readonly kind: 'apply'; readonly cluster: string; readonly which: 'train' | 'good' }
  | { readonly kind: 'pin'; readonly cluster: string; readonly renderRef: string }
  | { readonly kind: 'delete'; readonly release: string };

export type FleetPlan = {
  readonly actions: readonly FleetAction[];
  readonly train: FleetTrain;
  readonly members: readonly FleetMemberStatus[];
  /** The train Succeeded on every member in this pass: its revision becomes the good one. */
  readonly good: boolean;
  readonly message: string;
  readonly hold: FleetHold | undefined;
  readonly requeueAfterMs: number | undefined;
};

type Row = { -readonly [K in keyof FleetMemberStatus]: FleetMemberStatus[K] };

export function planFleet(input: PlanInput): FleetPlan {
  const { now, trainId } = input;
  let train: FleetTrain =
    input.priorTrain?.id === trainId
      ? input.priorTrain
      : { revision: input.revision, id: trainId, state: 'Progressing', startedAt: now };
  const members = [...input.members].sort((a, b) => a.wave - b.wave || a.cluster.localeCompare(b.cluster));
  const at = (m: PlanMember) => m.release !== undefined && m.release.train === trainId;
  const outcomes = new Map<string, Outcome>();
  for (const m of members)
    if (m.release !== undefined && at(m)) outcomes.set(m.cluster, outcomeOf(m.release));

  if (train.state === 'Progressing') {
    const failed = members.find((m) => {
      const k = outcomes.get(m.cluster)?.kind;
      return k === 'Failed' || k === 'RolledBack';
    });
    const o = failed === undefined ? undefined : outcomes.get(failed.cluster);
    if (failed !== undefined && o !== undefined && (o.kind === 'Failed' || o.kind === 'RolledBack')) {
      train = {
        ...train,
        state: input.fleetRollback ? 'RolledBack' : 'Stopped',
        failedCluster: failed.cluster,
        reason: o.reason ?? o.kind,
        message: `revision ${train.revision} ${o.kind === 'Failed' ? 'failed' : 'was rolled back'} on cluster ${failed.cluster} (wave ${failed.wave})${o.message === undefined ? '' : `: ${o.message}`}`,
        finishedAt: now,
      };
    }
  }

  const actions: FleetAction[] = [];
  const rows: Row[] = [];
  const joinGood = (m: PlanMember, row: Row): boolean => {
    if (m.release !== undefined || input.goodRevision === undefined || input.goodRevision === input.revision)
      return false;
    actions.push({ kind: 'apply', cluster: m.cluster, which: 'good' });
    row.state = 'Progressing';
    row.revision = input.goodRevision;
    row.message = `new member: given the good revision ${input.goodRevision} first`;
    return true;
  };
  const onGoodInFlight = (m: PlanMember): boolean =>
    m.release !== undefined &&
    m.release.revision === input.goodRevision &&
    m.release.train !== trainId &&
    outcomeOf(m.release).kind !== 'Succeeded' &&
    m.prior?.message?.startsWith('new member') === true;

  let requeueAfterMs: number | undefined;
  // A Succeeded train stays open: a member that joins after it gets its (good) revision.
  let open = train.state === 'Progressing' || train.state === 'Succeeded';
  let frontier: number | undefined;
  let holdMessage: string | undefined;
  const rolledBack: string[] = [];
  const stalls: (FleetHold & { readonly wave: number })[] = [];
  const waves = [...new Set(members.map((m) => m.wave))];
  for (const wave of waves) {
    const inWave = members.filter((m) => m.wave === wave);
    const waveOpen = open;
    if (waveOpen) frontier = wave;
    let slots =
      (input.maxParallel ?? Number.POSITIVE_INFINITY) -
      inWave.filter((m) => at(m) && outcomes.get(m.cluster)?.kind !== 'Succeeded').length;
    for (const m of inWave) {
      const row: Row = base(m);
      rows.push(row);
      const o = outcomes.get(m.cluster);
      if (o !== undefined) {
        fromOutcome(row, o, m, now);
        const verifying = o.kind === 'Progressing' ? m.release?.verified : undefined;
        if (verifying !== undefined && VERIFYING.has(verifying.reason))
          row.message = verifying.message.slice(0, 1024);
        if (train.state === 'RolledBack') rollBack(m, row, train, actions, rolledBack);
        const cause = o.kind === 'Pending' || o.kind === 'Progressing' ? stallOf(m) : undefined;
        if (cause !== undefined && train.state === 'Progressing') {
          row.state = 'Stalled';
          row.message = cause.message.slice(0, 1024);
          stalls.push({ ...cause, wave });
        }
        continue;
      }
      if (m.paused) {
        row.state = 'Paused';
        row.message = `Cluster ${m.cluster} has spec.paused true: it holds revision ${row.revision ?? 'none'}`;
        continue;
      }
      if (m.inputError !== undefined) {
        row.state = 'Error';
        row.message = m.inputError;
        continue;
      }
      const cause = waveOpen && train.state === 'Progressing' ? stallOf(m) : undefined;
      if (cause?.reason === 'ClusterNotReady') {
        // Not given the train until its Cluster is ready: its Release could only fail to reach it.
        row.state = 'Stalled';
        row.message = cause.message.slice(0, 1024);
        stalls.push({ ...cause, wave });
        continue;
      }
      if (joinGood(m, row)) continue;
      if (onGoodInFlight(m)) {
        row.state = 'Progressing';
        row.message = m.prior?.message;
        continue;
      }
      if (!waveOpen) {
        row.state = m.release === undefined ? 'Waiting' : stateOfOther(m.release);
        row.message =
          train.state === 'Progressing'
            ? `waits for the lower waves to finish revision ${train.revision}${holdMessage === undefined ? '' : ` (${holdMessage})`}`
            : `train ${train.state}: revision ${train.revision} is not rolled out further`;
        continue;
      }
      if (slots <= 0) {
        row.state = 'Waiting';
        row.message = `maxParallel ${input.maxParallel}: waits for a slot in wave ${wave}`;
        continue;
      }
      slots--;
      actions.push({ kind: 'apply', cluster: m.cluster, which: 'train' });
      row.state = 'Progressing';
      row.revision = train.revision;
      row.startedAt = now;
      // A member already on this revision (a forced sync re-runs it) may count a render of this very
      // revision as its last healthy one: the render recorded before the revision first came stays.
      const rerun = m.release?.revision === train.revision && row.rollbackTo !== undefined;
      if (!rerun && m.release?.lastHealthyRenderRef !== undefined)
        row.rollbackTo = m.release.lastHealthyRenderRef;
      row.message = `given revision ${train.revision}`;
    }
    if (!waveOpen) continue;
    const blockers = inWave.filter((m) => outcomes.get(m.cluster)?.kind !== 'Succeeded');
    if (blockers.length > 0) {
      open = false;
      holdMessage = `wave ${wave}: ${blockers
        .slice(0, 3)
        .map((m) =>
          blockerText(
            m,
            rows.find((r) => r.cluster === m.cluster),
          ),
        )
        .join(', ')}${blockers.length > 3 ? ', …' : ''}`;
      continue;
    }
    const last = Math.max(
      ...rows.filter((r) => r.wave === wave).map((r) => Date.parse(r.succeededAt ?? now)),
    );
    const soakMs = input.waveSoakMs.get(wave) ?? input.soakMs;
    const soakLeft = last + soakMs - input.nowMs;
    if (soakMs > 0 && soakLeft > 0 && wave !== waves[waves.length - 1]) {
      open = false;
      holdMessage = `wave ${wave} soaks until ${new Date(last + soakMs).toISOString()}`;
      requeueAfterMs = soakLeft;
    }
  }

  const good =
    train.state === 'Progressing' &&
    members.length > 0 &&
    members.every((m) => outcomes.get(m.cluster)?.kind === 'Succeeded');
  if (good) train = { ...train, state: 'Succeeded', finishedAt: now };
  if (train.state === 'RolledBack') train = { ...train, rolledBack };
  if (frontier !== undefined || train.wave !== undefined) train = { ...train, wave: frontier ?? train.wave };
  for (const release of input.strays) actions.push({ kind: 'delete', release });
  const hold = holdOf(train, rows.length, stalls, input.noMembers);
  return {
    actions,
    train,
    members: rows,
    good,
    message: hold === undefined ? messageOf(train, rows, holdMessage) : hold.message.slice(0, 256),
    hold,
    requeueAfterMs,
  };
}

/** Verified reasons of a member whose checks run or wait for a person: its row shows the checks. */
const VERIFYING: ReadonlySet<string> = new Set(['Verifying', 'VerificationInconclusive']);

/** A member the wave waits for, in the set's message: a verifying one with its checks. */
function blockerText(m: PlanMember, row: Row | undefined): string {
  const v = m.release?.verified;
  if (row?.state === 'Progressing' && v?.reason === 'Verifying') return `${m.cluster} ${v.message}`;
  return `${m.cluster} ${row?.state ?? ''}`;
}

/**
 * Why the member cannot go on: its Cluster is not ready, its Release says it cannot, or its checks are
 * inconclusive and wait for a person (convoy approve or rollback of that member's Release).
 */
function stallOf(m: PlanMember): FleetHold | undefined {
  const who = `member ${m.name} (cluster ${m.cluster})`;
  if (m.clusterNotReady !== undefined) {
    return {
      reason: 'ClusterNotReady',
      message: `${who}: Cluster ${m.cluster} is not ready: ${m.clusterNotReady}`,
    };
  }
  const b = m.release?.blocked;
  const v = m.release?.verified;
  if (b === undefined && v?.reason === 'VerificationInconclusive')
    return { reason: 'VerificationInconclusive', message: `${who}: ${v.message}` };
  if (b === undefined) return undefined;
  return {
    reason:
      b.reason === 'ClusterNotReady' || b.reason === 'ClusterNotFound' ? 'ClusterNotReady' : 'MemberStalled',
    message: `${who}: its Release cannot go on: ${b.reason}${b.message === '' ? '' : `: ${b.message}`}`,
  };
}

function holdOf(
  train: FleetTrain,
  count: number,
  stalls: readonly (FleetHold & { readonly wave: number })[],
  noMembers: string,
): FleetHold | undefined {
  if (count === 0) {
    return {
      reason: 'NoClusters',
      message: `${noMembers}: no cluster to roll revision ${train.revision} out to`,
    };
  }
  const first = stalls[0];
  if (train.state !== 'Progressing' || first === undefined) return undefined;
  const more = stalls.length > 1 ? ` (and ${stalls.length - 1} more)` : '';
  return {
    reason: first.reason,
    message: `revision ${train.revision} holds at wave ${first.wave}: ${first.message}${more}`,
  };
}

function base(m: PlanMember): Row {
  const row: Row = { cluster: m.cluster, wave: m.wave, state: 'Waiting' };
  if (m.release !== undefined) row.release = m.release.name;
  if (m.release?.revision !== undefined) row.revision = m.release.revision;
  if (m.release?.health !== undefined) row.health = m.release.health;
  if (m.prior?.rollbackTo !== undefined && m.prior.revision === m.release?.revision)
    row.rollbackTo = m.prior.rollbackTo;
  return row;
}

function fromOutcome(row: Row, o: Outcome, m: PlanMember, now: string): void {
  const prior = m.prior?.revision === m.release?.revision ? m.prior : undefined;
  if (prior?.startedAt !== undefined) row.startedAt = prior.startedAt;
  switch (o.kind) {
    case 'Pending':
    case 'Progressing':
      row.state = 'Progressing';
      row.message = o.kind === 'Pending' ? 'its Release has not reconciled the revision yet' : 'rolling out';
      return;
    case 'Succeeded':
      row.state = 'Succeeded';
      row.succeededAt = o.at ?? prior?.succeededAt ?? now;
      return;
    case 'Failed':
    case 'RolledBack':
      row.state = o.kind;
      row.message = `${o.reason ?? o.kind}${o.message === undefined ? '' : `: ${o.message}`}`.slice(0, 1024);
      return;
  }
}

/** A member that took the failed train goes back to the healthy render it ran before. */
function rollBack(m: PlanMember, row: Row, train: FleetTrain, actions: FleetAction[], done: string[]): void {
  const to = row.rollbackTo ?? m.release?.healthyBefore;
  if (to === undefined) {
    row.message = `revision ${train.revision} failed on ${train.failedCluster}; ${m.cluster} has no healthy render from before it to go back to`;
    return;
  }
  if (m.release?.pin !== to) actions.push({ kind: 'pin', cluster: m.cluster, renderRef: to });
  done.push(m.cluster);
  row.state = 'RolledBack';
  row.rollbackTo = to;
  row.message = `fleet rollback: re-applies its last healthy render ${to.slice(7, 19)} (revision ${train.revision} failed on ${train.failedCluster})`;
}

function stateOfOther(v: ReleaseView): Row['state'] {
  const k = outcomeOf(v).kind;
  return k === 'Pending' ? 'Progressing' : k;
}

function messageOf(train: FleetTrain, rows: readonly Row[], hold: string | undefined): string {
  const n = rows.filter((r) => r.state === 'Succeeded' && r.revision === train.revision).length;
  switch (train.state) {
    case 'Succeeded':
      return `revision ${train.revision} on all ${rows.length} clusters`;
    case 'Progressing':
      return `revision ${train.revision}: ${n}/${rows.length} clusters${hold === undefined ? '' : `; ${hold}`}`.slice(
        0,
        256,
      );
    case 'Stopped':
    case 'RolledBack':
      return (train.message ?? `train ${train.state}`).slice(0, 256);
  }
}
