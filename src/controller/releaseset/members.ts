// Who the members of a ReleaseSet are, as pure functions of its spec, the Clusters of its namespace and
// the Releases it owns: the Clusters its selector matches (each in the wave its spec.wave or the
// strategy's waveLabel gives), the local cluster when spec.local is set, and what planFleet needs of each
// (docs/design.md#fleets), with each Cluster's Ready=False (a missing kubeconfig Secret, unreachable). The controller feeds them from its informer caches.
import type { Cluster, FleetMemberStatus, Release, ReleaseSetSpec } from '../../api/types.ts';
import { nameOf } from '../../lib/names.ts';
import { selectorMatches } from '../../lib/selector.ts';
import { memberReleaseName } from './executor.ts';
import { LOCAL_MEMBER, type MemberCluster, memberSpec } from './member-spec.ts';
import { viewOf } from './observe.ts';
import type { PlanMember } from './plan.ts';

export type SelectedMember = {
  readonly cluster: MemberCluster;
  readonly wave: number;
  readonly paused: boolean;
  /** Why it cannot be given a Release whatever the inputs: a bad wave label, a member name taken twice. */
  readonly problem: string | undefined;
  /** Its Cluster's Ready=False (other than paused) as "<reason>: <message>". */
  readonly notReady: string | undefined;
};

/** The Cluster's Ready=False as "<reason>: <message>"; a paused one is not "not ready" but paused. */
function notReadyOf(c: Pick<Cluster, 'status'>): string | undefined {
  const ready = c.status?.conditions?.find((x) => x.type === 'Ready');
  if (ready?.status !== 'False' || ready.reason === 'Paused') return undefined;
  return `${ready.reason}${ready.message === undefined || ready.message === '' ? '' : `: ${ready.message}`}`;
}

/** Why a set has no member, naming the fields (only used when it has none). */
export function noMembersText(spec: Pick<ReleaseSetSpec, 'clusterSelector'>, namespace: string): string {
  return spec.clusterSelector === undefined
    ? 'neither spec.clusterSelector nor spec.local is set'
    : `spec.clusterSelector ${JSON.stringify(spec.clusterSelector)} matches no Cluster in namespace ${namespace}`;
}

/** The int32 range Cluster.spec.wave and the status rows' wave have (the API server enforces it). */
const WAVE_MIN = -(2 ** 31);
const WAVE_MAX = 2 ** 31 - 1;

/**
 * The wave of a Cluster: the value of the label waveLabel names when that is set (spec.wave is then
 * ignored; no such label: wave 0), else its spec.wave (none: 0). A label value that is not an int32 is
 * returned as the message saying so, naming the Cluster and the label.
 */
export function clusterWave(
  c: Pick<Cluster, 'metadata' | 'spec'>,
  waveLabel: string | undefined,
): number | string {
  if (waveLabel === undefined) return c.spec.wave ?? 0;
  const v = c.metadata.labels?.[waveLabel];
  if (v === undefined) return 0;
  const n = /^-?[0-9]+$/.test(v) ? Number(v) : Number.NaN;
  return n >= WAVE_MIN && n <= WAVE_MAX
    ? n
    : `Cluster ${c.metadata.name}: label ${waveLabel} (spec.strategy.waveLabel) is ${JSON.stringify(v)}, ${Number.isNaN(n) ? 'not an integer' : 'outside the int32 range'}`;
}

/**
 * The members of a set: the selected Clusters in the order given, then the local cluster (spec.local).
 * A selected Cluster named like the local member while spec.local is set would make two members of one
 * name (one Release name, one status row key): the local member is kept, with that as its problem.
 */
export function selectMembers(
  spec: Pick<ReleaseSetSpec, 'clusterSelector' | 'local' | 'strategy'>,
  clusters: readonly Pick<Cluster, 'metadata' | 'spec' | 'status'>[],
): SelectedMember[] {
  const selected: SelectedMember[] = [];
  if (spec.clusterSelector !== undefined) {
    for (const c of clusters) {
      if (!selectorMatches(spec.clusterSelector, c.metadata.labels)) continue;
      const wave = clusterWave(c, spec.strategy?.waveLabel);
      selected.push({
        cluster: {
          name: nameOf(c),
          local: false,
          labels: c.metadata.labels ?? {},
          annotations: c.metadata.annotations ?? {},
        },
        wave: typeof wave === 'number' ? wave : 0,
        paused: c.spec.paused === true,
        problem: typeof wave === 'string' ? wave : undefined,
        notReady: notReadyOf(c),
      });
    }
  }
  if (spec.local === undefined) return selected;
  const clash = selected.some((m) => m.cluster.name === LOCAL_MEMBER);
  return [
    ...selected.filter((m) => m.cluster.name !== LOCAL_MEMBER),
    {
      cluster: { name: LOCAL_MEMBER, local: true, labels: {}, annotations: {} },
      wave: spec.local.wave ?? 0,
      paused: false,
      notReady: undefined,
      problem: clash
        ? `Cluster ${LOCAL_MEMBER} matches spec.clusterSelector and spec.local is set: both would be member ${LOCAL_MEMBER}; rename the Cluster or drop spec.local`
        : undefined,
    },
  ];
}

export type PlanMembersInput = {
  readonly set: string;
  readonly namespace: string;
  readonly spec: Pick<ReleaseSetSpec, 'template' | 'inputs'>;
  readonly selected: readonly SelectedMember[];
  /** The Releases the set owns, by member name. */
  readonly owned: ReadonlyMap<string, Release>;
  /** A Release of the namespace by name (one the set does not own blocks its member). */
  readonly releaseNamed: (name: string) => Release | undefined;
  /** The rows of the set's last status, by member name. */
  readonly prior: ReadonlyMap<string, FleetMemberStatus>;
};

/** What planFleet needs of each member: its wave, pause, Release and why it cannot be given the train. */
export function planMembers(input: PlanMembersInput): PlanMember[] {
  const { set, namespace, spec } = input;
  return input.selected.map(({ cluster, wave, paused, problem, notReady }) => {
    const release = input.owned.get(cluster.name);
    const foreign =
      release === undefined ? input.releaseNamed(memberReleaseName(set, cluster.name)) : undefined;
    const filled = memberSpec(spec.template, spec.inputs, cluster);
    const inputError =
      problem !== undefined
        ? problem
        : foreign !== undefined
          ? `Release ${namespace}/${foreign.metadata.name} exists and is not owned by ReleaseSet ${set}`
          : filled.kind === 'error'
            ? filled.message
            : undefined;
    return {
      cluster: cluster.name,
      name: memberReleaseName(set, cluster.name),
      wave,
      paused,
      inputError,
      clusterNotReady: notReady,
      release: release === undefined ? undefined : viewOf(release),
      prior: input.prior.get(cluster.name),
    };
  });
}
