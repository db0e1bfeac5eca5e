// Shared set-up of the lifecycle-hook e2e tests: one control plane with kwok, convoy's CRDs and default
// health rules, convoy-controller-manager and convoy-observer as child processes; inline renders built
// from hook Jobs, ConfigMaps and Deployments; and a recorder that numbers every watch event of a
// namespace in the order this process received it, so a test can say "this happened before that".
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION, FIELD_MANAGERS, LABEL_RELEASE } from '../../src/api/constants.ts';
import type { Release, ReleaseInventory, ReleaseSpec } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import {
  type ControlPlane,
  startControlPlane,
  TEST_LABEL_FAIL,
  TEST_LABEL_NEVER_READY,
} from '../../src/testenv/index.ts';
import { type ManagerProcess, startControllerManager } from '../support/controller-manager.ts';
import { installCrds } from '../support/crds.ts';
import { type ObserverProcess, type ObserverSync, startObserver, syncVia } from '../support/observer.ts';
import { waitFor } from '../support/wait.ts';

export const LEASE_NS = 'convoy-system';
export const DEFAULT_RULES = {
  globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
};

export type { ObserverProcess } from '../support/observer.ts';

/** convoy-observer as a child process, ready once it logs so; its wake-ups go to `sync`. */
export function startObserverProcess(kubeconfigPath: string, sync: ObserverSync): Promise<ObserverProcess> {
  return startObserver({ kubeconfigPath, sync, leaseNamespace: LEASE_NS, leaseSeconds: 5 });
}

export interface HookEnv {
  readonly cp: ControlPlane;
  readonly client: KubeClient;
  readonly manager: ManagerProcess;
  readonly observer: ObserverProcess;
  /** The last lines of both processes' logs, for assertion messages. */
  logs(): string;
  /** A namespace whose default ServiceAccount exists (pod admission needs it). */
  namespace(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startHookEnv(identity: string): Promise<HookEnv> {
  const cp = await startControlPlane({ workloads: true, nodes: 2 });
  const client = new KubeClient(cp.kubeConfig);
  const work = await mkdtemp(join(tmpdir(), `convoy-${identity}-e2e-`));
  let manager: ManagerProcess | undefined;
  let observer: ObserverProcess | undefined;
  try {
    await installCrds(cp.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NS } });
    await installDefaultRules(client);
    manager = await startControllerManager({
      kubeconfigPath: cp.kubeconfigPath,
      identity,
      gitCacheDir: join(work, 'git-cache'),
    });
    observer = await startObserverProcess(cp.kubeconfigPath, syncVia(manager));
  } catch (err) {
    await observer?.stop();
    await manager?.stop();
    await cp.stop();
    await rm(work, { recursive: true, force: true });
    throw err;
  }
  const m = manager;
  const o = observer;
  return {
    cp,
    client,
    manager: m,
    observer: o,
    logs: () =>
      `--- controller-manager ---\n${m.log().slice(-6000)}\n--- observer ---\n${o.log().slice(-3000)}`,
    async namespace(name) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await waitFor(
        `ServiceAccount ${name}/default`,
        () => client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' }),
        { timeoutMs: 60_000 },
      );
    },
    async stop() {
      await o.stop();
      await m.stop();
      await cp.stop();
      await rm(work, { recursive: true, force: true });
    },
  };
}

// --- render objects --------------------------------------------------------------------------------

export type Manifest = Record<string, unknown>;

export interface HookJobOptions {
  readonly fail?: boolean;
  /** The Job's pod never becomes Ready and never completes. */
  readonly hang?: boolean;
  readonly timeout?: string;
  readonly policy?: string;
  /** Overrides the convoy.kumodo.io/hook annotation (bad input). */
  readonly phase?: string;
}

/** A hook Job: backoffLimit 0, so one failed pod fails it. */
export function hookJob(name: string, phase: string, opts: HookJobOptions = {}): Manifest {
  const annotations: Record<string, string> = { 'convoy.kumodo.io/hook': opts.phase ?? phase };
  if (opts.timeout !== undefined) annotations['convoy.kumodo.io/hook-timeout'] = opts.timeout;
  if (opts.policy !== undefined) annotations['convoy.kumodo.io/hook-delete-policy'] = opts.policy;
  const labels: Record<string, string> = { app: name };
  if (opts.fail) labels[TEST_LABEL_FAIL] = 'true';
  if (opts.hang) labels[TEST_LABEL_NEVER_READY] = 'true';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, annotations },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.invalid/hook:1' }] },
      },
    },
  };
}

export function configMap(name: string, wave = 0, data: Record<string, string> = { v: '1' }): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, annotations: { 'convoy.kumodo.io/sync-wave': String(wave) } },
    data,
  };
}

export function deployment(
  name: string,
  wave = 0,
  annotations: Record<string, string> = {},
  podLabels: Record<string, string> = {},
): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: { 'convoy.kumodo.io/sync-wave': String(wave), ...annotations } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, ...podLabels } },
        spec: { containers: [{ name: 'main', image: 'registry.invalid/web:1' }] },
      },
    },
  };
}

/** Multi-document YAML (JSON documents are YAML). */
export const manifests = (objs: readonly Manifest[]): string =>
  objs.map((o) => JSON.stringify(o)).join('\n---\n');

export function inlineRelease(
  ns: string,
  name: string,
  objs: readonly Manifest[],
  spec: Partial<ReleaseSpec> = {},
): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { inline: { manifests: manifests(objs) } },
      render: { targetNamespace: ns },
      syncPolicy: { interval: '3s' },
      ...spec,
    },
  };
}

// --- reading ---------------------------------------------------------------------------------------

export const releaseRef = (ns: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  namespace: ns,
  name,
});

export const getRelease = (client: KubeClient, ns: string, name: string) =>
  client.get<Release>(releaseRef(ns, name));

export const getInventory = (client: KubeClient, ns: string, name: string) =>
  client.get<ReleaseInventory>({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ns, name });

export const ready = (r: Release | undefined) => r?.status?.conditions?.find((c) => c.type === 'Ready');

export async function hookEntry(client: KubeClient, ns: string, name: string, hook: string) {
  return (await getInventory(client, ns, name))?.hooks?.find((h) => h.name === hook);
}

export interface JobLike extends KubeObject {
  metadata: KubeObject['metadata'] & { name: string; uid?: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}

export const jobDone = (j: JobLike | undefined, type: 'Complete' | 'Failed') =>
  j?.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

/** Sets annotations the way /sync does (merge patch under convoy-api). */
export async function annotate(
  client: KubeClient,
  ns: string,
  name: string,
  annotations: Record<string, string>,
) {
  await client.request({
    method: 'PATCH',
    path: await client.pathOf(releaseRef(ns, name)),
    contentType: 'application/merge-patch+json',
    body: { metadata: { annotations } },
    query: { fieldManager: FIELD_MANAGERS.api },
  });
}

// --- watching --------------------------------------------------------------------------------------

export interface Seen {
  readonly seq: number;
  readonly type: 'add' | 'update' | 'delete';
  readonly kind: string;
  readonly name: string;
  readonly object: KubeObject;
}

/**
 * Watches kinds in a namespace and numbers every event in the order received. Events of one object
 * arrive in order; across objects the order is the order of arrival, which follows causality for the
 * seconds-apart steps these tests compare.
 */
export class Recorder {
  readonly events: Seen[] = [];
  readonly #informers: Informer[] = [];
  #seq = 0;

  constructor(kubeConfig: ControlPlane['kubeConfig'], kinds: readonly { kind: string; path: string }[]) {
    const transport = new Transport(kubeConfig);
    for (const { kind, path } of kinds) {
      const inf = new Informer(transport, { path });
      const push = (type: Seen['type']) => (o: KubeObject) =>
        this.events.push({ seq: this.#seq++, type, kind, name: o.metadata?.name ?? '', object: o });
      const updated = push('update');
      inf.addHandlers({ add: push('add'), update: (_old, now) => updated(now), delete: push('delete') });
      this.#informers.push(inf);
    }
  }

  static forNamespace(kubeConfig: ControlPlane['kubeConfig'], ns: string, extra: string[] = []): Recorder {
    const kinds = [
      { kind: 'Job', path: `/apis/batch/v1/namespaces/${ns}/jobs` },
      { kind: 'ConfigMap', path: `/api/v1/namespaces/${ns}/configmaps` },
      { kind: 'Deployment', path: `/apis/apps/v1/namespaces/${ns}/deployments` },
      { kind: 'Release', path: `/apis/${API_VERSION}/namespaces/${ns}/releases` },
      { kind: 'ReleaseInventory', path: `/apis/${API_VERSION}/namespaces/${ns}/releaseinventories` },
    ];
    return new Recorder(
      kubeConfig,
      kinds.filter((k) => extra.length === 0 || extra.includes(k.kind)),
    );
  }

  async start(): Promise<void> {
    for (const i of this.#informers) i.start();
    await Promise.all(this.#informers.map((i) => i.waitForSync()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.stop()));
  }

  /** The first event matching, or undefined. */
  first(pred: (s: Seen) => boolean): Seen | undefined {
    return this.events.find(pred);
  }

  /** seq of the first event matching; throws naming `what` when there is none. */
  at(what: string, pred: (s: Seen) => boolean): number {
    const s = this.first(pred);
    if (s === undefined) throw new Error(`never seen: ${what}\n${this.summary()}`);
    return s.seq;
  }

  summary(): string {
    return this.events
      .filter((e) => e.kind !== 'Release' && e.kind !== 'ReleaseInventory')
      .map((e) => `${e.seq} ${e.type} ${e.kind}/${e.name}`)
      .join('\n');
  }
}

/** The pod-owned label every convoy object and hook workload carries. */
export const releaseLabel = (ns: string, name: string) => ({ [LABEL_RELEASE]: `${ns}.${name}` });
