// The controller's half of job checks (docs/design.md#verification): the observer asks for each
// measurement's Job in the inventory's verification (a check's `run`); the controller creates it under
// the Release's identity, as it creates hook workloads, and deletes every Job of the Release's checks that
// no unfinished verification of R asks for any more. Pure; act/verification-jobs.ts reads and writes.
import { ANNOTATION_RELEASE_UID, LABEL_RELEASE } from '../../../api/constants.ts';
import { parseDuration } from '../../../api/duration.ts';
import type { JobRun } from '../../../api/schema/verification.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { freshVerification } from '../../../api/verification.ts';
import { type JobAttempt, jobAttemptMarks, jobOfAttempt } from '../../../api/verification-job.ts';
import type { Obj } from '../../../render/types.ts';
import { type LiveWorkload, workloadDeadlineSeconds } from './hooks/workload.ts';

/** A Job the verification asks for now. */
export interface WantedJob {
  readonly run: JobRun;
  readonly attempt: JobAttempt;
}

/**
 * The runs of R's verification while it can still use them: R's rollout Progressing and unpinned, the
 * verification fresh for it (freshVerification) and unfinished, the check itself unfinished. A
 * verification that passed, failed or was accepted (the rollout no longer Progressing), a superseded
 * render and a Release being deleted want none.
 */
export function wantedJobs(release: Release, inventory: ReleaseInventory | undefined): WantedJob[] {
  const rollout = release.status?.rollout;
  if (release.spec.verification === undefined || release.metadata.deletionTimestamp !== undefined) return [];
  if (rollout?.state !== 'Progressing' || release.spec.pin !== undefined) return [];
  const st = freshVerification(inventory?.verification, rollout.renderRef, rollout.startedAt);
  if (st === undefined || st.phase === 'Passed' || st.phase === 'Failed') return [];
  return (st.checks ?? []).flatMap((c) =>
    c.run === undefined || c.phase === 'Passed' || c.phase === 'Failed'
      ? []
      : [{ run: c.run, attempt: { check: c.name, renderRef: st.renderRef, startedAt: st.startedAt } }],
  );
}

/**
 * Whether Jobs of job checks may be live: some are wanted, or the inventory's verification (of this
 * render or an older one) ran a job check. A Release that never ran one lists no Jobs.
 */
export function jobsMayExist(inventory: ReleaseInventory | undefined, wanted: readonly WantedJob[]): boolean {
  return wanted.length > 0 || (inventory?.verification?.checks ?? []).some((c) => c.provider === 'job');
}

/** The parts of a live Job the decision reads: those of a hook workload, and its name. */
export type LiveJob = LiveWorkload & { readonly metadata: { readonly name: string } };

export type JobAction =
  | { readonly kind: 'create'; readonly want: WantedJob }
  /** Not wanted (or an older attempt's under a wanted name): deleted, with its pods. */
  | { readonly kind: 'delete'; readonly name: string; readonly uid: string | undefined }
  /** Under a wanted name, but not this Release's: left alone, said in a note. */
  | { readonly kind: 'foreign'; readonly name: string; readonly message: string };

/**
 * What to do with the Release's Jobs: `live` are those labelled with its release label and a check. A
 * wanted Job that exists for its attempt is adopted (a controller that created it and crashed never
 * creates a second); one of an older attempt under the same name is deleted first, and created at a later
 * pass once gone. A Job is deleted only when it names this Release's uid: a label can be copied.
 */
export function planVerificationJobs(
  wanted: readonly WantedJob[],
  live: readonly LiveJob[],
  releaseUid: string,
): JobAction[] {
  const ours = (j: LiveJob) => j.metadata.annotations?.[ANNOTATION_RELEASE_UID] === releaseUid;
  const byName = new Map(live.map((j) => [j.metadata.name, j]));
  const actions: JobAction[] = [];
  for (const want of wanted) {
    const j = byName.get(want.run.name);
    if (j === undefined) actions.push({ kind: 'create', want });
    else if (!ours(j)) {
      actions.push({
        kind: 'foreign',
        name: j.metadata.name,
        message: `Job ${j.metadata.name} exists and is not a Job of this Release's check ${want.attempt.check}`,
      });
    } else if (!jobOfAttempt(j.metadata, want.attempt) && j.metadata.deletionTimestamp === undefined)
      actions.push({ kind: 'delete', name: j.metadata.name, uid: j.metadata.uid });
  }
  const names = new Set(wanted.map((w) => w.run.name));
  for (const j of live) {
    if (names.has(j.metadata.name) || !ours(j) || j.metadata.deletionTimestamp !== undefined) continue;
    actions.push({ kind: 'delete', name: j.metadata.name, uid: j.metadata.uid });
  }
  return actions;
}

/**
 * The Job of a run: the check's labels and annotations, the release label and uid, the attempt's marks,
 * and activeDeadlineSeconds a little past the check's timeout (as a hook workload's), so a Job the
 * observer gave up on also stops running in the cluster.
 */
export function verificationJobObject(
  want: WantedJob,
  namespace: string,
  releaseLabel: string,
  releaseUid: string,
): Obj {
  const { run } = want;
  const marks = jobAttemptMarks(want.attempt);
  const spec = run.job.spec as Record<string, unknown>;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: run.name,
      namespace,
      labels: { ...run.job.metadata?.labels, [LABEL_RELEASE]: releaseLabel, ...marks.labels },
      annotations: {
        ...run.job.metadata?.annotations,
        [ANNOTATION_RELEASE_UID]: releaseUid,
        ...marks.annotations,
      },
    },
    spec: {
      ...spec,
      activeDeadlineSeconds: workloadDeadlineSeconds(spec.activeDeadlineSeconds, parseDuration(run.timeout)),
    },
  } as Obj;
}
