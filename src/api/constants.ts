// Names of convoy's API that more than one component must spell the same way: group/version/plurals,
// annotation and label keys, the finalizer and the SSA field managers (docs/design.md#field-ownership).

export const GROUP = 'convoy.kumodo.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The aggregated API convoy's server serves: distinct from the CRDs' convoy.kumodo.io, which the CRDs
 * already serve. Both processes and the CLI spell its URLs with it (docs/design.md#layers). */
export const AGGREGATED_API_GROUP = 'api.convoy.kumodo.io';
export const AGGREGATED_API_VERSION = 'v1alpha1';
export const AGGREGATED_GROUP_VERSION = `${AGGREGATED_API_GROUP}/${AGGREGATED_API_VERSION}`;

/** Kind → plural resource name and scope of every convoy resource. */
export const RESOURCES = {
  Release: { plural: 'releases', singular: 'release', listKind: 'ReleaseList', namespaced: true },
  ReleaseInventory: {
    plural: 'releaseinventories',
    singular: 'releaseinventory',
    listKind: 'ReleaseInventoryList',
    namespaced: true,
  },
  Cluster: { plural: 'clusters', singular: 'cluster', listKind: 'ClusterList', namespaced: true },
  HealthRuleSet: {
    plural: 'healthrulesets',
    singular: 'healthruleset',
    listKind: 'HealthRuleSetList',
    namespaced: true,
  },
  GlobalHealthRuleSet: {
    plural: 'globalhealthrulesets',
    singular: 'globalhealthruleset',
    listKind: 'GlobalHealthRuleSetList',
    namespaced: false,
  },
  Provider: { plural: 'providers', singular: 'provider', listKind: 'ProviderList', namespaced: true },
  Alert: { plural: 'alerts', singular: 'alert', listKind: 'AlertList', namespaced: true },
  Receiver: { plural: 'receivers', singular: 'receiver', listKind: 'ReceiverList', namespaced: true },
  ReleaseSet: { plural: 'releasesets', singular: 'releaseset', listKind: 'ReleaseSetList', namespaced: true },
} as const;
export type ConvoyKind = keyof typeof RESOURCES;

export const PLURAL_RELEASES = RESOURCES.Release.plural;
export const PLURAL_INVENTORIES = RESOURCES.ReleaseInventory.plural;
export const PLURAL_CLUSTERS = RESOURCES.Cluster.plural;
export const PLURAL_HEALTH_RULE_SETS = RESOURCES.HealthRuleSet.plural;
export const PLURAL_GLOBAL_HEALTH_RULE_SETS = RESOURCES.GlobalHealthRuleSet.plural;
export const PLURAL_PROVIDERS = RESOURCES.Provider.plural;
export const PLURAL_ALERTS = RESOURCES.Alert.plural;
export const PLURAL_RECEIVERS = RESOURCES.Receiver.plural;
export const PLURAL_RELEASE_SETS = RESOURCES.ReleaseSet.plural;

const prefix = `${GROUP}/`;

/** On a Release a ReleaseSet owns: the set's name, the member cluster, the fleet revision and train it runs. */
export const LABEL_RELEASE_SET = `${prefix}releaseset`;
export const LABEL_FLEET_CLUSTER = `${prefix}fleet-cluster`;
export const ANNOTATION_FLEET_REVISION = `${prefix}fleet-revision`;
export const ANNOTATION_FLEET_TRAIN = `${prefix}fleet-train`;

/** Label on every applied object: `<namespace>.<name>` of its Release, so orphans can always be found. */
export const LABEL_RELEASE = `${prefix}release`;
/**
 * Annotation on every applied object: the uid of the Release that applied it. Crash recovery and prune
 * delete an object only when it names the Release's own uid: a label can be copied, a uid cannot.
 */
export const ANNOTATION_RELEASE_UID = `${prefix}release-uid`;
/** Label of the default GlobalHealthRuleSet (`default`). */
export const LABEL_RULES = `${prefix}rules`;
/** On a ConfigMap or Secret named by render.helm.valuesFrom (value "true"): a change wakes its Releases at once. */
export const LABEL_WATCH = `${prefix}watch`;

/** Annotations on objects of a render. */
export const ANNOTATION_SYNC_WAVE = `${prefix}sync-wave`;
export const ANNOTATION_HOOK = `${prefix}hook`;
export const ANNOTATION_HOOK_TIMEOUT = `${prefix}hook-timeout`;
export const ANNOTATION_HOOK_DELETE_POLICY = `${prefix}hook-delete-policy`;
/** An integer: within a phase, hooks run in ascending weight, each weight once the lower ones succeeded. */
export const ANNOTATION_HOOK_WEIGHT = `${prefix}hook-weight`;
export const ANNOTATION_PRUNE = `${prefix}prune`;
/** Value of ANNOTATION_PRUNE that keeps an object when it leaves the render. */
export const PRUNE_DISABLED = 'disabled';

/** Annotations convoy puts on a hook's workload (Job or Pod) so it can be traced back to its arming. */
export const ANNOTATION_HOOK_NAME = `${prefix}hook-name`;
export const ANNOTATION_HOOK_RENDER_REF = `${prefix}render-ref`;
export const ANNOTATION_HOOK_CREATED_AT = `${prefix}hook-created-at`;

/** Annotations on a Release, written by the HTTP API (`/sync`). */
export const ANNOTATION_SYNC_REQUESTED_AT = `${prefix}sync-requested-at`;
export const ANNOTATION_APPROVED_RENDER = `${prefix}approved-render`;
export const ANNOTATION_FORCE_SYNC_AT = `${prefix}force-sync-at`;
/**
 * Who asked, written in the same apply as the annotation it names (docs/http-api.md#post-sync):
 * `user:<username>` (the authenticated user) or `receiver:<namespace>/<name>` (a push).
 */
export const ANNOTATION_SYNC_REQUESTED_BY = `${prefix}sync-requested-by`;
export const ANNOTATION_APPROVED_BY = `${prefix}approved-by`;
/**
 * The render a person accepted while its verification was inconclusive (convoy approve on a held rollout):
 * verdict(R) counts R as verified (docs/design.md#verification).
 */
export const ANNOTATION_ACCEPTED_RENDER = `${prefix}accepted-render`;
export const ANNOTATION_ACCEPTED_BY = `${prefix}accepted-by`;
export const ANNOTATION_FORCE_SYNC_BY = `${prefix}force-sync-by`;
/** The requests the API records, each value's annotation beside the one naming who asked. */
export const API_REQUEST_ANNOTATIONS = {
  sync: { value: ANNOTATION_SYNC_REQUESTED_AT, by: ANNOTATION_SYNC_REQUESTED_BY },
  approve: { value: ANNOTATION_APPROVED_RENDER, by: ANNOTATION_APPROVED_BY },
  accept: { value: ANNOTATION_ACCEPTED_RENDER, by: ANNOTATION_ACCEPTED_BY },
  force: { value: ANNOTATION_FORCE_SYNC_AT, by: ANNOTATION_FORCE_SYNC_BY },
} as const;
export type ApiRequest = keyof typeof API_REQUEST_ANNOTATIONS;

/**
 * On a Release: `orphan` gives up a deletion that cannot reach its target (a Cluster that is gone,
 * unreachable or forbids the prune): the objects are left where they are and the finalizer goes.
 */
export const ANNOTATION_DELETION_POLICY = `${prefix}deletion-policy`;
/** The one value of ANNOTATION_DELETION_POLICY. */
export const DELETION_POLICY_ORPHAN = 'orphan';

export const FINALIZER = `${prefix}finalizer`;
/**
 * On every ReleaseInventory: keeps it readable until the Release's own finalizer has pruned what it lists,
 * even when the garbage collector deletes it first (a Release deleted with foreground cascade).
 */
export const INVENTORY_FINALIZER = `${prefix}inventory-protection`;

/** Server-Side Apply field managers (docs/design.md#field-ownership). Each writer uses exactly one. */
export const FIELD_MANAGERS = {
  /** Release status (all but the observer's fields), Cluster status, inventory keys/wave/renderRef/hook definitions. */
  controller: 'convoy-controller',
  /** Release conditions Healthy and Drifted, status.healthSummary and driftSummary (both observer loops, one write). */
  observer: 'convoy-observer',
  /** Inventory entry state, message, firstUnhealthy, assessedRenderRef. */
  healthInventory: 'convoy-health-inventory',
  /** Inventory entries' drifted/driftMessage (the drift loop). */
  drift: 'convoy-drift',
  /** Inventory hook state, reason, message, finishedAt. */
  hookStatus: 'convoy-hook-status',
  /** The inventory's verification: what the observer measured for a render (docs/design.md#verification). */
  verification: 'convoy-verification',
  /** Release annotations sync-requested-at, approved-render, force-sync-at. */
  api: 'convoy-api',
  /** Objects in target clusters. */
  deployer: 'convoy',
  /** Provider, Alert and Receiver status (the notification controller). */
  notify: 'convoy-notify',
  /** ReleaseSet status and the spec of the Releases a ReleaseSet owns (the fleet controller). */
  fleet: 'convoy-fleet',
} as const;
export type FieldManager = (typeof FIELD_MANAGERS)[keyof typeof FIELD_MANAGERS];

/** Hook phases accepted in ANNOTATION_HOOK. */
export const HOOK_PHASES = ['PreSync', 'PostSync', 'SyncFail', 'PreDelete', 'PostDelete'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** The path of a Receiver on convoy's HTTP API: what a git host's webhook is pointed at. */
export function receiverPath(namespace: string, name: string): string {
  return `/hook/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}
