// Helpers of the rollout e2e tests and bench/rollout.ts: git fixtures whose Deployments are healthy,
// never Ready or Ready after a delay (kwok's test stages), a git-sourced Release with short deadlines,
// waiting on status.rollout, one test's namespace, repository and rollout recording, and reading what is
// live.
import type { Release, RolloutState, RolloutStatus } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { type Fixture, makeRepo } from '../../src/render/git/testsupport.ts';
import {
  TEST_ANNOTATION_READY_DELAY,
  TEST_LABEL_DELAY,
  TEST_LABEL_NEVER_READY,
} from '../../src/testenv/index.ts';
import { type RolloutLog, recordRollouts } from './recorder.ts';
import { gitRelease as bareGitRelease, cm, getRelease, wave } from './release.ts';
import { type ConvoySystem, DEFAULT_RULES_SELECTOR } from './system.ts';
import { waitFor } from './wait.ts';

export type PodBehaviour = 'healthy' | 'never-ready' | { readonly readyAfter: string };

/** A one-replica Deployment; `tag` changes its pod template so each commit is a new ReplicaSet. */
export function deployment(
  name: string,
  tag: string,
  pods: PodBehaviour,
  annotations: Record<string, string> = {},
): string {
  const labels: Record<string, string> = { app: name };
  const podAnnotations: Record<string, string> = { 'example.com/tag': tag };
  if (pods === 'never-ready') labels[TEST_LABEL_NEVER_READY] = 'true';
  else if (pods !== 'healthy') {
    labels[TEST_LABEL_DELAY] = 'true';
    podAnnotations[TEST_ANNOTATION_READY_DELAY] = pods.readyAfter;
  }
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: ${JSON.stringify(labels)}
      annotations: ${JSON.stringify(podAnnotations)}
    spec:
      containers: [{name: main, image: "registry.invalid/app:${tag}"}]
`;
}

/**
 * The rollout tests' app at version `n`: Deployment `web` (tag `v<n>`, pods `pods`) and ConfigMap `cfg`
 * (`v: "<n>"`), as the files of one commit; `waved`: web in wave 0, cfg in wave 1.
 */
export function webAndCfg(n: number, pods: PodBehaviour, waved = false): Record<string, string> {
  return {
    'app/web.yaml': deployment('web', `v${n}`, pods, waved ? wave(0) : {}),
    'app/cfg.yaml': cm('cfg', { v: String(n) }, waved ? wave(1) : {}),
  };
}

/**
 * The verification tests' app at `tag`: Deployment `web` (always Ready) and ConfigMap `traffic`, whose
 * `errorRate` the traffic simulator reads (src/testenv/traffic-sim.ts), as the files of one commit.
 */
export function trafficApp(tag: string, errorRate: string): Record<string, string> {
  return {
    'app/web.yaml': deployment('web', tag, 'healthy'),
    'app/traffic.yaml': `apiVersion: v1
kind: ConfigMap
metadata: {name: traffic}
data: {errorRate: "${errorRate}", latencyMs: "20"}
`,
  };
}

/** The repository's app/ on branch main, synced every second, assessed by the default rules. */
export function gitRelease(
  ns: string,
  name: string,
  repo: Fixture,
  spec: Partial<Release['spec']> = {},
): Release {
  return bareGitRelease(ns, name, repo, {
    healthAssessment: { deadline: '3s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
    failurePolicy: { deadline: '8s', rollback: 'OnFailure' },
    ...spec,
  });
}

/** Waits until status.rollout satisfies `ok`; returns the Release. */
export function waitForRollout(
  client: KubeClient,
  ns: string,
  name: string,
  what: string,
  ok: (r: RolloutStatus, rel: Release) => boolean,
  timeoutMs = 60_000,
): Promise<Release> {
  let last: Release | undefined;
  return waitFor(
    `${ns}/${name}: ${what}`,
    async () => {
      const r = await getRelease(client, ns, name);
      last = r;
      const ro = r?.status?.rollout;
      return r !== undefined && ro !== undefined && ok(ro, r) ? r : false;
    },
    { timeoutMs, intervalMs: 200 },
  ).catch((err: Error) => {
    // Where the Release stood is what a reader of a failed run needs first.
    const st = last?.status;
    const where = { rollout: st?.rollout, conditions: st?.conditions, lastAttempted: st?.lastAttempted };
    throw new Error(`${err.message}\nstatus: ${JSON.stringify(where)}`, { cause: err });
  });
}

/** waitForRollout on `app` in `ns` of `env`; a timeout's message carries the status and both processes' logs. */
export function waitForAppRollout(
  env: ConvoySystem,
  ns: string,
  what: string,
  ok: (r: RolloutStatus, rel: Release) => boolean,
  timeoutMs?: number,
): Promise<Release> {
  return waitForRollout(env.client, ns, 'app', what, ok, timeoutMs).catch((err: Error) => {
    throw new Error(`${err.message}\n${env.logs()}`, { cause: err });
  });
}

/** status.rollout is in `state` for the commit `revision`. */
export const reached =
  (state: RolloutState, revision: string) =>
  (r: RolloutStatus): boolean =>
    r.state === state && r.revision === revision;

/** One rollout test's own namespace, git repository and recording of its Release `app`'s rollouts. */
export interface RolloutScenario {
  readonly ns: string;
  readonly repo: Fixture;
  readonly log: RolloutLog;
  /** waitForRollout on `app`; a timeout's message carries the status and both processes' logs. */
  waitForRollout(
    what: string,
    ok: (r: RolloutStatus, rel: Release) => boolean,
    timeoutMs?: number,
  ): Promise<Release>;
  /** What runs in `ns`: the tag of a Deployment's pod template (liveTag) and a ConfigMap. */
  readonly live: {
    tag(name: string): Promise<string | undefined>;
    configMap(name: string): Promise<LiveConfigMap | undefined>;
  };
}

/** A new namespace `ns` of `env` and a new git repository for one test; `cleanups` removes the repository. */
export async function namespaceWithRepo(
  env: ConvoySystem,
  ns: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<Fixture> {
  await env.namespace(ns);
  const repo = await makeRepo(ns);
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** Runs `body` in a new namespace `ns` with a new repository `repoName`; stops the recording and removes the repository after. */
export async function inRolloutScenario(
  env: ConvoySystem,
  ns: string,
  repoName: string,
  body: (s: RolloutScenario) => Promise<void>,
): Promise<void> {
  await env.namespace(ns);
  const repo = await makeRepo(repoName);
  const log = await recordRollouts(env.cp, ns, 'app');
  try {
    await body({
      ns,
      repo,
      log,
      waitForRollout: (what, ok, timeoutMs) => waitForAppRollout(env, ns, what, ok, timeoutMs),
      live: {
        tag: (name) => liveTag(env.client, ns, name),
        configMap: (name) => liveConfigMap(env.client, ns, name),
      },
    });
  } finally {
    await log.stop();
    await repo.cleanup();
  }
}

export type LiveDeployment = {
  metadata: { labels?: Record<string, string> };
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
};
export type LiveConfigMap = { data?: Record<string, string>; metadata: { labels?: Record<string, string> } };

/** The example.com/tag of the live Deployment's pod template: which commit's Deployment is live. */
export async function liveTag(client: KubeClient, ns: string, name: string): Promise<string | undefined> {
  const d = await client.get<LiveDeployment>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: ns,
    name,
  });
  return d?.spec?.template?.metadata?.annotations?.['example.com/tag'];
}

export async function liveConfigMap(client: KubeClient, ns: string, name: string) {
  return client.get<LiveConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
}

/** The rollout deadline as the controller counts it: startedAt + failurePolicy.deadline. */
export function deadlineOf(rollout: RolloutStatus | undefined, deadline: string): number {
  const started = rollout?.startedAt;
  if (started === undefined) throw new Error(`rollout has no startedAt: ${JSON.stringify(rollout)}`);
  return Date.parse(started) + Number.parseInt(deadline, 10) * 1000;
}

export async function events(client: KubeClient, ns: string, name: string) {
  const all = await client.list<{ reason?: string; message?: string; involvedObject?: { name?: string } }>({
    apiVersion: 'v1',
    kind: 'Event',
    namespace: ns,
  });
  return all.filter((e) => e.involvedObject?.name === name);
}
