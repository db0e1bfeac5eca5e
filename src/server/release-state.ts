// releaseState: the one state a Release is in, derived once from its status, so the UI's list and page,
// `convoy get` and the API's health view say the same word. The raw conditions answer narrower questions
// and can look contradictory side by side: a rollout that Failed under `rollback: Never` leaves Ready
// True (the render is applied), a Release awaiting approval has Ready False, and without a
// healthAssessment Healthy is True/NotConfigured although nothing was assessed. Pure.
import { READY_REASONS, type ReadyReason, type Release } from '../api/types.ts';
import { assertNever } from '../lib/assert-never.ts';
import { followedRender } from './progress.ts';

export const RELEASE_STATES = [
  'Ready',
  'Progressing',
  'AwaitingApproval',
  'Waiting',
  'Degraded',
  'Failed',
  'RolledBack',
  'Suspended',
  'Pending',
  'Deleting',
] as const;
export type ReleaseStateName = (typeof RELEASE_STATES)[number];

/** How a state should strike a reader: fine, busy, calm (waits on a person or a gate), or bad. */
export type StateTone = 'ok' | 'busy' | 'calm' | 'bad';

/** The Healthy condition in one word; NotAssessed without a healthAssessment (no objects are judged). */
export type HealthWord = 'Healthy' | 'Degraded' | 'Progressing' | 'Pending' | 'Unknown' | 'NotAssessed';

export interface ReleaseState {
  readonly state: ReleaseStateName;
  readonly tone: StateTone;
  /** Why, as a reason word (DryRunFailed, ObjectsUnhealthy, WaitingForApproval…); '' when Ready. */
  readonly reason: string;
  readonly health: HealthWord;
  /** spec.pin is set: convoy does not follow the source. */
  readonly pinned: boolean;
}

/** What a Ready reason says of the Release, before the rollout and health are read. */
type ReadyMeaning =
  | 'synced'
  | 'busy'
  | 'gate'
  | 'approval'
  | 'suspended'
  | 'rolledBack'
  | 'deleting'
  | 'error';

function readyMeaning(reason: ReadyReason): ReadyMeaning {
  switch (reason) {
    case 'Synced':
      return 'synced';
    case 'Progressing':
    case 'WaitingForHook':
    case 'WaitingForWaveHealth':
      return 'busy';
    case 'WaitingForClusterWave':
    case 'ClusterPaused':
      return 'gate';
    case 'WaitingForApproval':
      return 'approval';
    case 'Suspended':
      return 'suspended';
    case 'RolledBack':
      return 'rolledBack';
    case 'Deleting':
      return 'deleting';
    case 'SourceFailed':
    case 'SourceTimeout':
    case 'RenderFailed':
    case 'PinNotFound':
    case 'ClusterNotFound':
    case 'ClusterNotReady':
    case 'ServiceAccountRequired':
    case 'DryRunFailed':
    case 'PersistFailed':
    case 'ApplyFailed':
    case 'HookFailed':
    case 'WaveTimeout':
    case 'PruneFailed':
      return 'error';
    default:
      return assertNever(reason);
  }
}

const isReadyReason = (s: string | undefined): s is ReadyReason =>
  s !== undefined && (READY_REASONS as readonly string[]).includes(s);

export function toneOf(state: ReleaseStateName): StateTone {
  switch (state) {
    case 'Ready':
      return 'ok';
    case 'Progressing':
    case 'Pending':
    case 'Deleting':
      return 'busy';
    case 'AwaitingApproval':
    case 'Waiting':
    case 'Suspended':
      return 'calm';
    case 'Degraded':
    case 'Failed':
    case 'RolledBack':
      return 'bad';
    default:
      return assertNever(state);
  }
}

export function healthWord(r: Release): HealthWord {
  const c = r.status?.conditions?.find((x) => x.type === 'Healthy');
  if (r.spec.healthAssessment === undefined || c?.reason === 'NotConfigured') return 'NotAssessed';
  if (c === undefined) return 'Pending';
  if (c.status === 'True') return 'Healthy';
  if (c.status === 'False') return 'Degraded';
  if (c.reason === 'Progressing' || c.reason === 'Pending') return c.reason;
  return 'Unknown';
}

/** The state and its reason; the first rule that matches decides (table in release-state.test.ts). */
function decide(r: Release, health: HealthWord): { state: ReleaseStateName; reason: string } {
  const s = r.status;
  const ready = s?.conditions?.find((c) => c.type === 'Ready');
  const current = followedRender(r);
  const ro = s?.rollout !== undefined && s.rollout.renderRef === current ? s.rollout : undefined;
  const meaning: ReadyMeaning | undefined =
    ready === undefined
      ? undefined
      : isReadyReason(ready.reason)
        ? readyMeaning(ready.reason)
        : ready.status === 'True'
          ? 'synced'
          : ready.status === 'False'
            ? 'error'
            : 'busy';
  const readyWhy = ready?.reason ?? '';
  if (r.metadata.deletionTimestamp !== undefined || meaning === 'deleting')
    return { state: 'Deleting', reason: 'Deleting' };
  if (r.spec.suspend === true || meaning === 'suspended') return { state: 'Suspended', reason: 'Suspended' };
  if (meaning === 'approval') return { state: 'AwaitingApproval', reason: readyWhy };
  if (ro?.state === 'RolledBack' || meaning === 'rolledBack')
    return { state: 'RolledBack', reason: ro?.reason ?? readyWhy };
  if (ro?.state === 'Failed') return { state: 'Failed', reason: ro.reason ?? 'Failed' };
  if (meaning === 'error') return { state: 'Failed', reason: readyWhy };
  if (ro?.state === 'Progressing' || meaning === 'busy')
    return { state: 'Progressing', reason: meaning === 'busy' ? readyWhy : (ro?.reason ?? '') };
  if (meaning === 'gate') return { state: 'Waiting', reason: readyWhy };
  if (meaning === undefined) return { state: 'Pending', reason: '' };
  // Ready True: the render is applied; what is left to say is the health of its objects.
  if (health === 'Degraded') return { state: 'Degraded', reason: 'Degraded' };
  if (health === 'Progressing' || health === 'Pending')
    return { state: 'Progressing', reason: `Health${health}` };
  return { state: 'Ready', reason: '' };
}

export function releaseState(r: Release): ReleaseState {
  const health = healthWord(r);
  const { state, reason } = decide(r, health);
  return { state, tone: toneOf(state), reason, health, pinned: r.spec.pin !== undefined };
}
