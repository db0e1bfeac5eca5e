// The whole system for e2e tests (and bench/rollout.ts): one control plane with kwok, convoy's CRDs, the
// Lease namespace and the default health rules, and convoy-controller-manager and convoy-observer as
// child processes, the observer waking the controller through the controller-manager's HTTP API.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Release } from '../../src/api/types.ts';
import type { Tenancy } from '../../src/controller/release/act/target.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { isLeaseLive, type Lease, observerLeaseName } from '../../src/runtime/index.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from './crds.ts';
import { startedPerFile } from './per-file.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startControllerManager,
  startObserver,
  tailLogs,
  type Wakeups,
  wakeupsTo,
} from './processes.ts';
import { getRelease, waitForReady } from './release.ts';
import { waitFor } from './wait.ts';

export const LEASE_NS = 'convoy-system';
/** The GlobalHealthRuleSet selector of the default rules installDefaultRules applies. */
export const DEFAULT_RULES_SELECTOR = { matchLabels: { 'convoy.kumodo.io/rules': 'default' } };
/** spec.healthAssessment that assesses with the default rules. */
export const DEFAULT_HEALTH = { globalRuleSetSelector: DEFAULT_RULES_SELECTOR };

/** A namespace whose default ServiceAccount exists (pod admission needs it). */
export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await waitFor(
    `ServiceAccount ${name}/default`,
    () => client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' }),
    { timeoutMs: 60_000 },
  );
}

export interface ConvoySystem {
  readonly cp: ControlPlane;
  readonly client: KubeClient;
  /** A scratch directory, removed by stop(). */
  readonly work: string;
  readonly manager: ManagerProcess;
  /** The current observer (restartObserver replaces it). */
  readonly observer: ObserverProcess;
  /** Where the observer's wake-ups go: the controller-manager's API. */
  readonly wakeups: Wakeups;
  /** The last lines of both processes' logs, for assertion messages. */
  logs(): string;
  namespace(name: string): Promise<void>;
  /** Polls the Release until `ok` (default 120 s); a timeout's message carries both processes' logs. */
  waitForRelease(
    ns: string,
    name: string,
    what: string,
    ok: (r: Release) => boolean,
    timeoutMs?: number,
  ): Promise<Release>;
  /**
   * Polls until the Release is gone (default 120 s); a timeout's message carries `context()` when given
   * and both processes' logs.
   */
  waitForReleaseGone(ns: string, name: string, timeoutMs?: number, context?: () => string): Promise<void>;
  /** The observer's shard Lease is live now (the controller's reading; one shard). */
  observerLive(): Promise<boolean>;
  /** Stops the observer (nothing to do after kill()) and starts a new one paired with the same API. */
  restartObserver(): Promise<ObserverProcess>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** The controller-manager's Lease identity; names the scratch directory. */
  readonly identity: string;
  /** The observer's --lease-duration (default 5s). */
  readonly observerLeaseDuration?: string;
  /** Simulated nodes (default 2). */
  readonly nodes?: number;
  /** The controller-manager's --tenancy; default cluster (the Releases of most tests name no account). */
  readonly tenancy?: Tenancy;
  /** More controller-manager flags, after the usual ones (a later flag wins: `--helm-binary X`). */
  readonly managerArgs?: readonly string[];
  /** More observer flags (e.g. `--shard-count 2` next to sharded controller-managers). */
  readonly observerArgs?: readonly string[];
  /** Extra kube-apiservers as target clusters (ControlPlane.extra). */
  readonly extraClusters?: number;
  /** Workload processes and a kwok node in each extra cluster too. */
  readonly extraWorkloads?: boolean;
}

export async function startConvoySystem(opts: SystemOptions): Promise<ConvoySystem> {
  const cp = await startControlPlane({
    workloads: true,
    nodes: opts.nodes ?? 2,
    ...(opts.extraClusters === undefined ? {} : { extraClusters: opts.extraClusters }),
    ...(opts.extraWorkloads === undefined ? {} : { extraWorkloads: opts.extraWorkloads }),
  });
  const client = new KubeClient(cp.kubeConfig);
  const work = await mkdtemp(join(tmpdir(), `convoy-${opts.identity}-e2e-`));
  let manager: ManagerProcess | undefined;
  let observer: ObserverProcess | undefined;
  const startPairedObserver = (wakeups: Wakeups) =>
    // Its own <hostname>-<pid> identity: a restarted observer is a new holder, as a new pod would be.
    startObserver({
      kubeconfigPath: cp.kubeconfigPath,
      leaseNamespace: LEASE_NS,
      leaseDuration: opts.observerLeaseDuration ?? '5s',
      wakeups,
      ...(opts.observerArgs === undefined ? {} : { args: opts.observerArgs }),
    });
  try {
    await installCrds(cp.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NS } });
    await installDefaultRules(client);
    manager = await startControllerManager({
      tenancy: opts.tenancy ?? { mode: 'cluster' },
      kubeconfigPath: cp.kubeconfigPath,
      identity: opts.identity,
      leaseNamespace: LEASE_NS,
      gitCacheDir: join(work, 'git-cache'),
      ...(opts.managerArgs === undefined ? {} : { args: opts.managerArgs }),
    });
    const wakeups = wakeupsTo(manager);
    observer = await startPairedObserver(wakeups);
    const m = manager;
    let o = observer;
    const logs = () => tailLogs(m, o);
    return {
      cp,
      client,
      work,
      manager: m,
      get observer() {
        return o;
      },
      wakeups,
      logs,
      namespace: (name) => createNamespace(client, name),
      async waitForRelease(ns, name, what, ok, timeoutMs = 120_000) {
        try {
          return await waitForReady(client, ns, name, ok, what, timeoutMs);
        } catch (err) {
          throw new Error(`${errorMessage(err)}\n${logs()}`);
        }
      },
      async waitForReleaseGone(ns, name, timeoutMs = 120_000, context) {
        await waitFor(`${ns}/${name} gone`, async () => (await getRelease(client, ns, name)) === undefined, {
          timeoutMs,
        }).catch((err: Error) => {
          throw new Error(`${err.message}\n${context === undefined ? '' : `${context()}\n`}${logs()}`);
        });
      },
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
        await o.stop();
        o = await startPairedObserver(wakeups);
        return o;
      },
      async stop() {
        await o.stop().catch(() => undefined);
        await m.stop().catch(() => undefined);
        await cp.stop();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await observer?.stop();
    await manager?.stop();
    await cp.stop();
    await rm(work, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The system of one test file: started in before() and stopped in after() of the file that calls this
 * (at its top level). The object returned stands for it from before() on.
 */
export function convoySystemPerFile(
  opts: SystemOptions & {
    /**
     * The file's own set-up on the started system, in the same before(): a second top-level before()
     * would not wait for the start (Node 24 runs a file's top-level before hooks without awaiting one
     * before the next).
     */
    readonly setUp?: (sys: ConvoySystem) => Promise<void>;
  },
): ConvoySystem {
  return startedPerFile(
    `the ${opts.identity} system`,
    async () => {
      const sys = await startConvoySystem(opts);
      await opts.setUp?.(sys);
      return sys;
    },
    (sys) => sys.stop(),
  );
}
