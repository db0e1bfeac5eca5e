// The fleet controller's I/O (docs/design.md#fleets): writes the status planFleet decided, then its
// actions — apply a member's Release for the train or the good revision, pin it for a fleet rollback,
// delete a stray. Status first: a crash after it redoes the same actions from the status, so a fleet
// rollback once decided is never forgotten. The status write carries the uid and resourceVersion the plan
// read (sent even when nothing changed if there are actions), so a plan made from a stale read of the set
// — a shard handover, or this process's own write its cache lags — never lands, and its actions never run.
import {
  ANNOTATION_FLEET_REVISION,
  ANNOTATION_FLEET_TRAIN,
  ANNOTATION_FORCE_SYNC_AT,
  API_VERSION,
  FIELD_MANAGERS,
  LABEL_FLEET_CLUSTER,
  LABEL_RELEASE_SET,
} from '../../api/constants.ts';
import type { Condition, Release, ReleaseSet, ReleaseSetStatus } from '../../api/types.ts';
import { applyObject, preconditionsOf } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isConflict } from '../../kube/errors.ts';
import { writeStatus } from '../../kube/status.ts';
import { errorMessage } from '../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { setCondition } from '../release/decide/rollout/conditions.ts';
import {
  type Inputs,
  type MemberCluster,
  memberSpec,
  type Template,
  type WaveVerifications,
  waveVerifications,
} from './member-spec.ts';
import type { FleetAction, FleetPlan } from './plan.ts';

export type FleetExecutorDeps = {
  readonly client: KubeClient;
  readonly nowMs: number;
  /** Told of each status write (what it replaced, what the server stored): the next pass reads it. */
  readonly noteWritten?: (replaced: ReleaseSet, object: ReleaseSet) => void;
};

/** `conflict`: the set changed since it was read; nothing was done, the plan must be made again. */
export type ExecuteResult =
  | { readonly kind: 'done'; readonly failures: readonly string[] }
  | { readonly kind: 'conflict' };

/** The Release name of a member: `<set>-<cluster>`. */
export function memberReleaseName(set: string, cluster: string): string {
  return `${set}-${cluster}`;
}

export function statusOf(
  set: ReleaseSet,
  plan: FleetPlan,
  revision: string,
  nowMs: number,
): ReleaseSetStatus {
  const prior = set.status;
  const m = plan.members;
  const n = (s: string) => m.filter((r) => r.state === s).length;
  const succeeded = m.filter((r) => r.state === 'Succeeded' && r.revision === plan.train.revision).length;
  // A hold (no cluster, a member that cannot go on) is False: a person must act.
  const ready: Omit<Condition, 'lastTransitionTime'> =
    plan.hold !== undefined
      ? {
          type: 'Ready',
          status: 'False',
          reason: plan.hold.reason,
          message: plan.hold.message.slice(0, 4096),
          observedGeneration: set.metadata.generation ?? 0,
        }
      : {
          type: 'Ready',
          status:
            plan.train.state === 'Succeeded'
              ? 'True'
              : plan.train.state === 'Progressing'
                ? 'Unknown'
                : 'False',
          reason: plan.train.state === 'Succeeded' ? 'Succeeded' : plan.train.state,
          message: plan.message,
          observedGeneration: set.metadata.generation ?? 0,
        };
  const waves = waveVerifications(set.spec);
  const good = plan.good
    ? {
        revision: plan.train.revision,
        template: set.spec.template as unknown as Record<string, unknown>,
        ...(set.spec.inputs === undefined ? {} : { inputs: set.spec.inputs as Record<string, unknown> }),
        ...(waves.length === 0 ? {} : { waves: waves.map((w) => ({ ...w }) as Record<string, unknown>) }),
      }
    : prior?.good;
  const force = set.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT];
  return {
    observedGeneration: set.metadata.generation ?? 0,
    conditions: [...setCondition(prior?.conditions ?? [], ready, nowMs)],
    revision,
    train: plan.train,
    ...(good === undefined ? {} : { good }),
    clusters: [...m],
    summary: {
      total: m.length,
      succeeded,
      progressing: n('Progressing'),
      waiting: n('Waiting'),
      failed: n('Failed') + n('RolledBack') + n('Error') + n('Stalled'),
      paused: n('Paused'),
      ready: `${succeeded}/${m.length}`,
    },
    ...(force === undefined ? {} : { lastHandledForceSyncAt: force }),
    message: plan.message,
  };
}

/** What a member is given: a revision's template, inputs and waves' verification. */
export type MemberRevision = {
  readonly revision: string;
  readonly train: string;
  readonly template: Template;
  readonly inputs: Inputs | undefined;
  readonly waves: WaveVerifications;
};

/** The Release a member of `wave` gets for a revision, or why it cannot. */
export function memberRelease(
  set: ReleaseSet,
  cluster: MemberCluster,
  wave: number,
  rev: MemberRevision,
  pin: string | undefined,
): Release | string {
  const own = rev.waves.find((w) => w.wave === wave)?.verification;
  const spec = memberSpec(rev.template, rev.inputs, cluster, own);
  if (spec.kind === 'error') return spec.message;
  const name = nameOf(set);
  const force = set.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT];
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: {
      name: memberReleaseName(name, cluster.name),
      namespace: namespaceOf(set),
      labels: {
        ...(rev.template.metadata?.labels ?? {}),
        [LABEL_RELEASE_SET]: name,
        [LABEL_FLEET_CLUSTER]: cluster.name,
      },
      annotations: {
        ...(rev.template.metadata?.annotations ?? {}),
        [ANNOTATION_FLEET_REVISION]: rev.revision,
        [ANNOTATION_FLEET_TRAIN]: rev.train,
        ...(force === undefined || rev.train === rev.revision ? {} : { [ANNOTATION_FORCE_SYNC_AT]: force }),
      },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'ReleaseSet',
          name,
          uid: set.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: pin === undefined ? spec.spec : { ...spec.spec, pin: { renderRef: pin } },
  };
}

export type ExecuteInput = {
  readonly set: ReleaseSet;
  readonly plan: FleetPlan;
  readonly revision: string;
  readonly trainId: string;
  readonly clusters: ReadonlyMap<string, MemberCluster>;
};

/** Writes the status, then every action; the failures name each member and step. */
export async function executeFleetPlan(input: ExecuteInput, deps: FleetExecutorDeps): Promise<ExecuteResult> {
  const { set, plan } = input;
  let basis: ReleaseSet;
  try {
    basis = await writeSetStatus(
      set,
      statusOf(set, plan, input.revision, deps.nowMs),
      plan.actions.length > 0,
      deps,
    );
  } catch (err) {
    if (isConflict(err)) return { kind: 'conflict' };
    throw err;
  }
  const failures: string[] = [];
  const failed = new Map<string, string>();
  for (const action of plan.actions) {
    try {
      await run(action, input, deps);
    } catch (err) {
      const text = `${describe(action)}: ${errorMessage(err)}`;
      failures.push(text);
      if (action.kind !== 'delete') failed.set(action.cluster, text.slice(0, 1024));
    }
  }
  if (failed.size > 0) {
    // The rows of the members whose write failed say why (the API's refusal names the field).
    const members = plan.members.map((m) => {
      const why = failed.get(m.cluster);
      return why === undefined ? m : { ...m, state: 'Error' as const, message: why };
    });
    await writeSetStatus(basis, statusOf(set, { ...plan, members }, input.revision, deps.nowMs), false, deps);
  }
  return { kind: 'done', failures };
}

/**
 * Applies the set's status with `set`'s uid and resourceVersion as preconditions (409 when the set
 * changed since); skipped when it would change nothing, unless `always`. Returns what the set now is.
 */
async function writeSetStatus(
  set: ReleaseSet,
  status: ReleaseSetStatus,
  always: boolean,
  deps: FleetExecutorDeps,
): Promise<ReleaseSet> {
  const target = {
    kind: 'ReleaseSet',
    namespace: namespaceOf(set),
    name: nameOf(set),
  };
  const options = { fieldManager: FIELD_MANAGERS.fleet, force: true } as const;
  let object: ReleaseSet;
  if (!always) {
    const r = await writeStatus<ReleaseSet>(deps.client, target, status as Record<string, unknown>, {
      ...options,
      cached: set,
      precondition: true,
    });
    if (!r.written) return set;
    object = r.object;
  } else {
    // An apply that changes nothing still checks its preconditions: proof the actions follow from the newest set.
    object = await applyObject<ReleaseSet>(
      deps.client,
      {
        apiVersion: API_VERSION,
        kind: 'ReleaseSet',
        metadata: { name: target.name, namespace: target.namespace },
        status: structuredClone(status),
      } as ReleaseSet,
      { ...options, subresource: 'status', ...preconditionsOf(set) },
    );
  }
  deps.noteWritten?.(set, object);
  return object;
}

async function run(action: FleetAction, input: ExecuteInput, deps: FleetExecutorDeps): Promise<void> {
  const { set } = input;
  const ns = namespaceOf(set);
  if (action.kind === 'delete') {
    await deps.client.delete({
      apiVersion: API_VERSION,
      kind: 'Release',
      namespace: ns,
      name: action.release,
    });
    return;
  }
  const cluster = input.clusters.get(action.cluster);
  if (cluster === undefined) throw new Error(`no member ${action.cluster}`);
  const good = set.status?.good;
  const rev: MemberRevision | undefined =
    action.kind === 'apply' && action.which === 'good'
      ? good === undefined
        ? undefined
        : {
            revision: good.revision,
            train: good.revision,
            template: good.template as unknown as Template,
            inputs: good.inputs as Inputs | undefined,
            waves: (good.waves ?? []) as unknown as WaveVerifications,
          }
      : {
          revision: input.revision,
          train: input.trainId,
          template: set.spec.template,
          inputs: set.spec.inputs,
          waves: waveVerifications(set.spec),
        };
  if (rev === undefined) throw new Error('no good revision recorded');
  const wave = input.plan.members.find((m) => m.cluster === action.cluster)?.wave;
  if (wave === undefined) throw new Error(`no member ${action.cluster} in the plan`);
  const pin = action.kind === 'pin' ? action.renderRef : undefined;
  const release = memberRelease(set, cluster, wave, rev, pin);
  if (typeof release === 'string') throw new Error(release);
  await applyObject(deps.client, release, { fieldManager: FIELD_MANAGERS.fleet, force: true });
}

function describe(a: FleetAction): string {
  switch (a.kind) {
    case 'apply':
      return `apply the ${a.which === 'good' ? 'good' : 'train'} revision to cluster ${a.cluster}`;
    case 'pin':
      return `pin cluster ${a.cluster} to ${a.renderRef}`;
    case 'delete':
      return `delete Release ${a.release}`;
  }
}
