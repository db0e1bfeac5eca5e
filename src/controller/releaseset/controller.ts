// The fleet controller (controller-manager): for each ReleaseSet, gather its members (the Clusters its
// selector matches, and the local cluster), their Releases and the set's last status, let planFleet
// decide, and have the executor write (docs/design.md#fleets). Woken by the set, by any change of a Release
// it owns and by the Clusters of its namespace (their Ready too); sharded by namespace, while its Releases are worked by the
// shards of their Clusters (docs/design.md#fleets says why that needs no more than one writer per set).
import {
  ANNOTATION_FORCE_SYNC_AT,
  API_VERSION,
  LABEL_FLEET_CLUSTER,
  LABEL_RELEASE_SET,
  PLURAL_RELEASE_SETS,
  PLURAL_RELEASES,
} from '../../api/constants.ts';
import { parseOptionalDuration } from '../../api/duration.ts';
import type { Cluster, Release, ReleaseSet } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { errorMessage } from '../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { selectorProblem } from '../../lib/selector.ts';
import {
  anyOf,
  byNamespace,
  type Controller,
  changed,
  deletionStarted,
  generationChanged,
  type Harness,
  type KubeObject,
  keyOf,
  OwnWrites,
  type ReconcileResult,
  shardOf,
  splitKey,
} from '../../runtime/index.ts';
import { clusterInformer } from '../cluster/controller.ts';
import { formatTime } from '../release/decide/rollout/time.ts';
import { executeFleetPlan } from './executor.ts';
import { fleetRevision, trainId, waveVerifications } from './member-spec.ts';
import { noMembersText, planMembers, selectMembers } from './members.ts';
import { planFleet } from './plan.ts';

type CSet = ReleaseSet & KubeObject;
type CRelease = Release & KubeObject;

export const FLEET_CONTROLLER = 'releaseset';
const BY_SET = 'releaseset-owner';
const SETS_BY_NAMESPACE = 'releaseset-namespace';
const CLUSTERS_BY_NAMESPACE = 'releaseset-cluster-namespace';
/** A train in flight is re-planned at least this often, whatever the watches say. */
const PROGRESS_RECHECK_MS = 30_000;
/** How soon a set whose status write lost a race is planned again (its cache is catching up). */
const CONFLICT_REQUEUE_MS = 200;

export type FleetControllerOptions = {
  readonly client: KubeClient;
  readonly workers?: number;
  readonly shardCount?: number;
  /** Work only this shard (static sharding, no leader election). */
  readonly shardIndex?: number;
  readonly now?: () => number;
};

/** A Cluster's Ready condition, as the fleet sees it (status and reason). */
const readyOf = (c: { readonly status?: Cluster['status'] }): string => {
  const r = c.status?.conditions?.find((x) => x.type === 'Ready');
  return r === undefined ? '' : `${r.status}/${r.reason}`;
};

export function registerFleetController(harness: Harness, opts: FleetControllerOptions): Controller<CSet> {
  const base = `/apis/${API_VERSION}`;
  const sets = harness.informer<CSet>({ path: `${base}/${PLURAL_RELEASE_SETS}`, stripManagedFields: false });
  // Shared by path with the release controller: the same options it asks for.
  const releases = harness.informer<CRelease>({
    path: `${base}/${PLURAL_RELEASES}`,
    stripManagedFields: false,
    resyncMs: 600_000,
  });
  const clusters = clusterInformer(harness);
  const now = opts.now ?? Date.now;
  const count = opts.shardCount ?? harness.shardCount;
  releases.addIndex(BY_SET, (r) => {
    const set = r.metadata.labels?.[LABEL_RELEASE_SET];
    return set === undefined ? [] : [`${r.metadata.namespace}/${set}`];
  });
  sets.addIndex(SETS_BY_NAMESPACE, byNamespace);
  clusters.addIndex(CLUSTERS_BY_NAMESPACE, byNamespace);

  // The set's own status writes, read back before the cache has them (docs/design.md#fault-model).
  const written = new OwnWrites<CSet>();
  written.follow(sets);
  const shardOfKey = (key: string) =>
    shardOf({ kind: 'namespace', namespace: splitKey(key).namespace ?? '' }, count);
  const reconcile = async (key: string): Promise<ReconcileResult> => {
    const set = written.fresh(key, sets.cache.get(key));
    if (set === undefined || set.metadata.deletionTimestamp !== undefined) return { kind: 'done' };
    const { namespace = '' } = splitKey(key);
    if (opts.shardIndex !== undefined && shardOfKey(key) !== opts.shardIndex) return { kind: 'done' };
    const name = nameOf(set);
    const spec = set.spec;
    const nowMs = now();
    const problem = selectorProblem(spec.clusterSelector);
    let soakMs = 0;
    const waveSoakMs = new Map<number, number>();
    let field = 'spec.strategy.soak';
    try {
      soakMs = parseOptionalDuration(spec.strategy?.soak) ?? 0;
      for (const [i, w] of (spec.strategy?.waves ?? []).entries()) {
        field = `spec.strategy.waves[${i}].soak`;
        const ms = parseOptionalDuration(w.soak);
        if (ms !== undefined) waveSoakMs.set(w.wave, ms);
      }
    } catch (err) {
      return { kind: 'error', error: new Error(`ReleaseSet ${key}: ${field}: ${errorMessage(err)}`) };
    }
    if (problem !== undefined)
      return { kind: 'error', error: new Error(`ReleaseSet ${key}: spec.clusterSelector: ${problem}`) };

    const revision = fleetRevision(spec.template, spec.inputs, waveVerifications(spec));
    const train = trainId(revision, set.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT]);
    const owned = new Map(
      releases.cache
        .byIndex(BY_SET, key)
        .filter((r) => r.metadata.ownerReferences?.some((o) => o.uid === set.metadata.uid) === true)
        .map((r) => [r.metadata.labels?.[LABEL_FLEET_CLUSTER] ?? '', r]),
    );
    const selected = selectMembers(spec, clusters.cache.byIndex(CLUSTERS_BY_NAMESPACE, namespace));
    const members = planMembers({
      set: name,
      namespace,
      spec,
      selected,
      owned,
      releaseNamed: (n) => releases.cache.get(`${namespace}/${n}`),
      prior: new Map((set.status?.clusters ?? []).map((m) => [m.cluster, m])),
    });
    const names = new Set(selected.map((s) => s.cluster.name));
    const strays = [...owned].filter(([c]) => !names.has(c)).map(([, r]) => nameOf(r));
    const plan = planFleet({
      now: formatTime(nowMs),
      nowMs,
      revision,
      trainId: train,
      priorTrain: set.status?.train,
      goodRevision: set.status?.good?.revision,
      maxParallel: spec.strategy?.maxParallel,
      soakMs,
      waveSoakMs,
      fleetRollback: spec.strategy?.fleetRollback === true,
      members,
      strays,
      noMembers: noMembersText(spec, namespace),
    });
    try {
      const result = await executeFleetPlan(
        {
          set,
          plan,
          revision,
          trainId: train,
          clusters: new Map(selected.map((s) => [s.cluster.name, s.cluster])),
        },
        {
          client: opts.client,
          nowMs,
          noteWritten: (replaced, object) => written.remember(key, replaced as CSet, object as CSet),
        },
      );
      if (result.kind === 'conflict') {
        written.forget(key);
        return { kind: 'requeueAfter', ms: CONFLICT_REQUEUE_MS };
      }
      if (result.failures.length > 0) return { kind: 'error', error: new Error(result.failures.join('; ')) };
    } catch (error) {
      return { kind: 'error', error };
    }
    if (plan.requeueAfterMs !== undefined) return { kind: 'requeueAfter', ms: plan.requeueAfterMs };
    return plan.train.state === 'Progressing'
      ? { kind: 'requeueAfter', ms: PROGRESS_RECHECK_MS }
      : { kind: 'done' };
  };

  const controller = harness.controller<CSet>({
    name: FLEET_CONTROLLER,
    primary: sets,
    reconcile,
    workers: opts.workers ?? 2,
    updateFilter: anyOf(
      generationChanged,
      deletionStarted,
      changed((s: CSet) => [s.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT]]),
    ),
    ...(opts.shardIndex === undefined ? { shardOfKey } : {}),
  });
  controller.watch({
    informer: releases,
    keys: (r) => {
      const set = r.metadata.labels?.[LABEL_RELEASE_SET];
      return set === undefined ? [] : [`${r.metadata.namespace}/${set}`];
    },
  });
  controller.watch({
    informer: clusters,
    updateFilter: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      // Ready turning False (a missing kubeconfig Secret) holds the train; back to True resumes it.
      readyOf(o) !== readyOf(n) ||
      JSON.stringify(o.metadata.labels) !== JSON.stringify(n.metadata.labels) ||
      JSON.stringify(o.metadata.annotations) !== JSON.stringify(n.metadata.annotations),
    keys: (c) => sets.cache.byIndex(SETS_BY_NAMESPACE, namespaceOf(c)).map(keyOf),
  });
  return controller;
}
