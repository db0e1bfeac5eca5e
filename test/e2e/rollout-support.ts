// Shared set-up of the rollout e2e tests and bench/rollout.ts: one control plane with kwok, the
// default GlobalHealthRuleSet, convoy-controller-manager and convoy-observer as child processes, git
// fixtures whose Deployments are healthy, never Ready or Ready after a delay, and a recorder of every
// status.rollout the API server shows (through a watch, so no transition is missed between polls).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION, LABEL_RELEASE } from '../../src/api/constants.ts';
import type { Release, RolloutStatus } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import type { Fixture } from '../../src/render/git/testsupport.ts';
import { isLeaseLive, type KubeObject, type Lease, observerLeaseName } from '../../src/runtime/index.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import {
  type ControlPlane,
  startControlPlane,
  TEST_ANNOTATION_READY_DELAY,
  TEST_LABEL_DELAY,
  TEST_LABEL_NEVER_READY,
} from '../../src/testenv/index.ts';
import { type ManagerProcess, startControllerManager } from '../support/controller-manager.ts';
import { installCrds } from '../support/crds.ts';
import {
  type ObserverProcess,
  type ObserverSync,
  startObserver as startObserverProcess,
  syncVia,
} from '../support/observer.ts';
import { getRelease } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

export const LEASE_NS = 'convoy-system';
export const DEFAULT_RULES = { matchLabels: { 'convoy.kumodo.io/rules': 'default' } };

export type { ObserverProcess } from '../support/observer.ts';

/** convoy-observer as a child process, its wake-ups sent to the controller-manager's API (`sync`). */
export function startObserver(
  kubeconfigPath: string,
  leaseSeconds: number,
  sync: ObserverSync,
): Promise<ObserverProcess> {
  return startObserverProcess({ kubeconfigPath, leaseNamespace: LEASE_NS, leaseSeconds, sync });
}

export interface RolloutEnv {
  readonly cp: ControlPlane;
  readonly client: KubeClient;
  readonly work: string;
  manager: ManagerProcess;
  observer: ObserverProcess;
  /** Where the observer's wake-ups go: the controller-manager's API. */
  readonly sync: ObserverSync;
  /** The observer's shard Lease is live now (the controller's reading, one shard). */
  observerLive(): Promise<boolean>;
  restartObserver(): Promise<ObserverProcess>;
  stop(): Promise<void>;
}

export async function startRolloutEnv(
  opts: { observerLeaseSeconds?: number; log?: (l: string) => void } = {},
): Promise<RolloutEnv> {
  const cp = await startControlPlane({ workloads: true, nodes: 2 });
  const client = new KubeClient(cp.kubeConfig);
  const work = await mkdtemp(join(tmpdir(), 'convoy-rollout-e2e-'));
  try {
    await installCrds(cp.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NS } });
    await installDefaultRules(client);
    const leaseSeconds = opts.observerLeaseSeconds ?? 5;
    const manager = await startControllerManager({
      kubeconfigPath: cp.kubeconfigPath,
      identity: 'rollout',
      gitCacheDir: join(work, 'git-cache'),
    });
    const sync = syncVia(manager);
    const observer = await startObserver(cp.kubeconfigPath, leaseSeconds, sync);
    const env: RolloutEnv = {
      cp,
      client,
      work,
      manager,
      observer,
      sync,
      async observerLive() {
        const lease = await client.get<Lease>({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          namespace: LEASE_NS,
          name: observerLeaseName(0),
        });
        return isLeaseLive(lease, Date.now());
      },
      async restartObserver() {
        await env.observer.stop();
        env.observer = await startObserver(cp.kubeconfigPath, leaseSeconds, sync);
        return env.observer;
      },
      async stop() {
        await env.observer.stop().catch(() => undefined);
        await env.manager.stop().catch(() => undefined);
        await cp.stop();
        await rm(work, { recursive: true, force: true });
      },
    };
    return env;
  } catch (err) {
    await cp.stop();
    await rm(work, { recursive: true, force: true });
    throw err;
  }
}

export async function namespace(client: KubeClient, name: string) {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await waitFor(
    `default service account in ${name}`,
    () => client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' }),
    { timeoutMs: 60_000 },
  );
}

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

export function gitRelease(
  ns: string,
  name: string,
  repo: Fixture,
  spec: Partial<Release['spec']> = {},
): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { git: { url: repo.url, ref: { branch: 'main' }, path: 'app' } },
      render: { targetNamespace: ns },
      syncPolicy: { interval: '1s' },
      healthAssessment: { deadline: '3s', globalRuleSetSelector: DEFAULT_RULES },
      failurePolicy: { deadline: '8s', rollback: 'OnFailure' },
      ...spec,
    },
  };
}

/** Every distinct status.rollout the watch delivered for one Release, with the local time it arrived. */
export interface RolloutLog {
  readonly seen: readonly { readonly at: number; readonly rollout: RolloutStatus | undefined }[];
  stop(): void;
}

export async function recordRollouts(cp: ControlPlane, ns: string, name: string): Promise<RolloutLog> {
  const inf = new Informer<Release & KubeObject>(new Transport(cp.kubeConfig), {
    path: `/apis/${API_VERSION}/namespaces/${ns}/releases`,
    fieldSelector: `metadata.name=${name}`,
  });
  const seen: { at: number; rollout: RolloutStatus | undefined }[] = [];
  const push = (r: Release) => {
    const last = seen[seen.length - 1];
    if (JSON.stringify(last?.rollout) !== JSON.stringify(r.status?.rollout))
      seen.push({ at: Date.now(), rollout: r.status?.rollout });
  };
  inf.addHandlers({ add: push, update: (_o, n) => push(n) });
  inf.start();
  await inf.waitForSync();
  return { seen, stop: () => inf.stop() };
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
  return waitFor(
    `${ns}/${name}: ${what}`,
    async () => {
      const r = await getRelease(client, ns, name);
      const ro = r?.status?.rollout;
      return r !== undefined && ro !== undefined && ok(ro, r) ? r : false;
    },
    { timeoutMs, intervalMs: 200 },
  );
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

export function releaseLabel(ns: string, name: string) {
  return { [LABEL_RELEASE]: `${ns}.${name}` };
}

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
