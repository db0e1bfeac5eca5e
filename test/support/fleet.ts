// Fleet fixtures for test/e2e/fleet*.test.ts and bench/fleet.ts: a Cluster (with its kubeconfig Secret and
// its target namespace) for a kube-apiserver of the control plane, the ReleaseSet `web` whose template is
// one ConfigMap carrying a version (bad where the Cluster's label `bad` names that version, by the
// HealthRuleSet `fleet`), and reads of the set and of what runs in a target.
import { readFile } from 'node:fs/promises';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release, ReleaseSet } from '../../src/api/types.ts';
import { memberReleaseName } from '../../src/controller/releaseset/executor.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import type { ClusterAccess } from '../../src/testenv/index.ts';
import { applyKubeconfigSecret } from './kubeconfig-secret.ts';
import { applyRuleSet } from './rules.ts';
import { waitFor } from './wait.ts';

const FM = { fieldManager: 'convoy-test', force: true } as const;
export const SET = 'web';

const MANIFEST = [
  'apiVersion: v1',
  'kind: ConfigMap',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the inputs fill
  'metadata: {name: web, namespace: "${NS}"}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholders the inputs fill
  'data: {version: "${VERSION}", bad: "${BAD}"}',
].join('\n');

/** The rule that makes a ConfigMap whose version is its `bad` value unhealthy. */
export async function applyFleetRule(client: KubeClient, ns: string): Promise<void> {
  await applyRuleSet(
    client,
    ns,
    'fleet',
    [
      {
        name: 'not-bad',
        match: { group: '', kinds: ['ConfigMap'] },
        healthy: '!has(object.data.bad) || object.data.version != object.data.bad',
        message: "'version ' + object.data.version + ' is bad here'",
      },
    ],
    { force: true },
  );
}

export type FleetCluster = {
  readonly name: string;
  readonly access: ClusterAccess;
  /** The namespace of the target its objects go to. */
  readonly targetNs: string;
  readonly wave: number;
  /** The version that is unhealthy on it ('none': no such version). */
  readonly bad: string;
  readonly paused?: boolean;
  /** Cluster.spec.shard (none: the hash of its namespace/name). */
  readonly shard?: number;
};

/** A row of a test's member table: which extra cluster of the control plane it is, and the rest. */
export type FleetMemberSpec = Omit<FleetCluster, 'name' | 'access'> & { readonly extra: number };

/** The member `name` of a test's table, on the extra kube-apiserver its row names. */
function fleetMember(
  extra: readonly ClusterAccess[],
  table: Readonly<Record<string, FleetMemberSpec>>,
  name: string,
): FleetCluster {
  const row = table[name];
  if (row === undefined) throw new Error(`no member ${name} in the table`);
  const { extra: i, ...rest } = row;
  const access = extra[i];
  if (access === undefined) throw new Error(`no extra cluster ${i}`);
  return { name, access, ...rest };
}

/** Creates the namespace on the target cluster (there already: nothing). */
export async function addTargetNamespace(c: Pick<FleetCluster, 'access'>, name: string): Promise<void> {
  await new KubeClient(c.access.kubeConfig)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
}

/** The Cluster's kubeconfig Secret `<name>-kubeconfig`. */
export async function addKubeconfigSecret(client: KubeClient, ns: string, c: FleetCluster): Promise<void> {
  const kubeconfig = await readFile(c.access.kubeconfigPath, 'utf8');
  await applyKubeconfigSecret(client, ns, `${c.name}-kubeconfig`, kubeconfig);
}

/** The Cluster, its target namespace and (unless `withSecret` is false) its kubeconfig Secret. */
export async function addFleetCluster(
  client: KubeClient,
  ns: string,
  c: FleetCluster,
  withSecret = true,
): Promise<void> {
  await addTargetNamespace(c, c.targetNs);
  if (withSecret) await addKubeconfigSecret(client, ns, c);
  await applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'Cluster',
      metadata: { name: c.name, namespace: ns, labels: { fleet: SET, bad: c.bad, ns: c.targetNs } },
      spec: {
        kubeconfigSecretRef: { name: `${c.name}-kubeconfig` },
        wave: c.wave,
        paused: c.paused === true,
        ...(c.shard === undefined ? {} : { shard: c.shard }),
      },
    },
    FM,
  );
}

/**
 * The ReleaseSet `web` at `version`, with fleetRollback (and `strategy`'s other fields); `more` adds to
 * its template's spec (spec.verification).
 */
export async function applyFleetSet(
  client: KubeClient,
  ns: string,
  version: string,
  strategy: Omit<NonNullable<ReleaseSet['spec']['strategy']>, 'fleetRollback'> = {},
  more: Partial<Release['spec']> = {},
): Promise<void> {
  const set: ReleaseSet = {
    apiVersion: API_VERSION,
    kind: 'ReleaseSet',
    metadata: { name: SET, namespace: ns },
    spec: {
      clusterSelector: { matchLabels: { fleet: SET } },
      template: {
        spec: {
          source: { inline: { manifests: MANIFEST } },
          render: { substitute: { VERSION: version } },
          healthAssessment: { deadline: '5s', localRuleSetSelector: { matchLabels: { rules: 'fleet' } } },
          failurePolicy: { deadline: '20s' },
          syncPolicy: { interval: '10s' },
          ...more,
        },
      },
      inputs: { substituteFromLabels: { BAD: 'bad', NS: 'ns' } },
      strategy: { ...strategy, fleetRollback: true },
    },
  };
  await applyObject(client, set, FM);
}

export async function getFleetSet(client: KubeClient, ns: string): Promise<ReleaseSet> {
  const s = await client.get<ReleaseSet>({
    apiVersion: API_VERSION,
    kind: 'ReleaseSet',
    namespace: ns,
    name: SET,
  });
  if (s === undefined) throw new Error(`ReleaseSet ${ns}/${SET} not found`);
  return s;
}

/** The version the ConfigMap `web` of a target namespace carries. */
export async function liveVersion(c: FleetCluster): Promise<string | undefined> {
  const cm = await new KubeClient(c.access.kubeConfig).get<{ data?: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: c.targetNs,
    name: 'web',
  });
  return cm?.data?.version;
}

/** The train of the set's current revision ended in `state`. */
export const trainEnded = (state: string) => (s: ReleaseSet) =>
  s.status?.observedGeneration === s.metadata.generation &&
  s.status?.train?.revision === s.status?.revision &&
  s.status?.train?.state === state;

export async function waitForSet(
  client: KubeClient,
  ns: string,
  what: string,
  ok: (s: ReleaseSet) => boolean,
  opts: { timeoutMs?: number; context?: () => string } = {},
): Promise<ReleaseSet> {
  return await waitFor(
    what,
    async () => {
      const s = await getFleetSet(client, ns);
      return ok(s) && s;
    },
    { timeoutMs: opts.timeoutMs ?? 180_000, intervalMs: 500 },
  ).catch(async (err: Error) => {
    const status = JSON.stringify((await getFleetSet(client, ns)).status, null, 1);
    throw new Error(`${err.message}\nstatus: ${status}\n${opts.context?.() ?? ''}`);
  });
}

/**
 * One e2e file's fleet: its namespace, its member table and its system's client, bound once, so each
 * file reads `fleet.live('c1')` rather than threading the client and namespace through every call.
 * `sys` is read at each call (its fields exist once the file's control plane is up).
 */
export function fleetFixture(
  sys: { readonly client: KubeClient; readonly cp: { readonly extra: readonly ClusterAccess[] } },
  ns: string,
  table: Readonly<Record<string, FleetMemberSpec>>,
  context: () => string,
) {
  const member = (name: string) => fleetMember(sys.cp.extra, table, name);
  return {
    member,
    names: Object.keys(table),
    live: (name: string) => liveVersion(member(name)),
    /** The Release the set made for the member `name`. */
    release: (name: string) =>
      sys.client.get<Release>({
        apiVersion: API_VERSION,
        kind: 'Release',
        namespace: ns,
        name: memberReleaseName(SET, name),
      }),
    set: () => getFleetSet(sys.client, ns),
    waitSet: (what: string, ok: (s: ReleaseSet) => boolean) =>
      waitForSet(sys.client, ns, what, ok, { context }),
    applyRule: () => applyFleetRule(sys.client, ns),
    addCluster: (name: string, withSecret = true) =>
      addFleetCluster(sys.client, ns, member(name), withSecret),
    addSecret: (name: string) => addKubeconfigSecret(sys.client, ns, member(name)),
    applySet: (
      version: string,
      strategy?: Parameters<typeof applyFleetSet>[3],
      more?: Parameters<typeof applyFleetSet>[4],
    ) => applyFleetSet(sys.client, ns, version, strategy, more),
  };
}
