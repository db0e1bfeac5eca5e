// The harness one convoy process runs on: shared informers, controllers, the shard elector,
// the probe/metrics server and graceful shutdown. Knows nothing about Releases.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Controller, type ControllerSpec } from './controller.ts';
import { leaseLive, ShardElector, type ShardGate } from './elector.ts';
import type { KubeObject } from './filters.ts';
import { Informer, type InformerOptions } from './informer.ts';
import { newLogger } from './log.ts';
import { type MemoryReturner, startMemoryReturn } from './memory-return.ts';
import { type HarnessMetrics, newMetrics } from './metrics.ts';
import { type ProbeServer, startProbeServer } from './server.ts';
import { controllerLeaseName, observerLeaseName } from './shard.ts';
import { Transport } from './transport.ts';

export type ShardOptions = {
  /** Shard count; both processes must use the same. */
  readonly count: number;
  /** Namespace of the Lease objects. */
  readonly namespace: string;
  /** Which process this is: picks the Lease names this replica competes for. */
  readonly role: 'controller' | 'observer';
  readonly identity: string;
  readonly leaseDurationSeconds?: number;
  readonly retryMs?: number;
};

export type HarnessOptions = {
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  readonly log?: Logger;
  /** Port for /metrics, /healthz, /readyz (0: any free port; undefined: no server). */
  readonly probePort?: number;
  /** Address it listens on (default 127.0.0.1; 0.0.0.0 in a pod, so the kubelet and Prometheus reach it). */
  readonly probeHost?: string;
  readonly shards?: ShardOptions;
  /** Deadline of one reconcile for controllers that set none (default DEFAULT_RECONCILE_TIMEOUT_MS). */
  readonly reconcileTimeoutMs?: number;
  /** Defaults for every informer. */
  readonly informerDefaults?: Partial<Omit<InformerOptions, 'path'>>;
};

export class Harness {
  readonly name: string;
  readonly log: Logger;
  readonly metrics: HarnessMetrics;
  readonly transport: Transport;
  readonly #opts: HarnessOptions;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #controllers: Controller<KubeObject>[] = [];
  readonly #onStop: Array<() => Promise<void>> = [];
  readonly #elector: ShardElector | undefined;
  #server: ProbeServer | undefined;
  #memoryReturn: MemoryReturner | undefined;
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(opts: HarnessOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.log = opts.log ?? newLogger(opts.name);
    this.metrics = newMetrics();
    this.transport = new Transport(opts.kubeConfig);
    const s = opts.shards;
    if (s !== undefined) {
      const leaseName = s.role === 'controller' ? controllerLeaseName : observerLeaseName;
      this.#elector = new ShardElector({
        transport: this.transport,
        namespace: s.namespace,
        leaseName,
        memberGroup: `convoy-${s.role}`,
        identity: s.identity,
        shards: s.count,
        ...(s.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: s.leaseDurationSeconds } : {}),
        ...(s.retryMs !== undefined ? { retryMs: s.retryMs } : {}),
        log: this.log.child({ component: 'elector' }),
        onGained: (shard) => {
          this.metrics.shardsHeld.set({ lease: leaseName(shard) }, 1);
          for (const c of this.#controllers) c.shardGained(shard);
        },
        onLost: (shard) => this.metrics.shardsHeld.set({ lease: leaseName(shard) }, 0),
      });
    }
  }

  /** The shard gate; undefined when the harness is not sharded (every key is this replica's). */
  get gate(): ShardGate | undefined {
    return this.#elector;
  }

  get shardCount(): number {
    return this.#opts.shards?.count ?? 1;
  }

  /** Gives memory back at the next check allowed: something large just became garbage (memory-return.ts). */
  requestMemoryReturn(): void {
    this.#memoryReturn?.request();
  }

  /** Shards this replica holds now. */
  heldShards(): number[] {
    return this.#elector?.held() ?? [];
  }

  /** Whether the observer holding `shard` is live: its Lease was renewed within its duration. */
  async observerLive(shard: number): Promise<boolean> {
    const ns = this.#opts.shards?.namespace;
    if (ns === undefined) throw new Error('observerLive needs shard options (the Lease namespace)');
    return await leaseLive(this.transport, ns, observerLeaseName(shard));
  }

  /** A shared informer: one per path and selectors, however many controllers use it. */
  informer<T extends KubeObject = KubeObject>(opts: InformerOptions): Informer<T> {
    const id = `${opts.path}?l=${opts.labelSelector ?? ''}&f=${opts.fieldSelector ?? ''}`;
    let inf = this.#informers.get(id);
    if (inf === undefined) {
      const resource = opts.path;
      inf = new Informer<KubeObject>(this.transport, {
        ...this.#opts.informerDefaults,
        ...opts,
        log: this.log.child({ component: 'informer', resource }),
        hooks: {
          onError: () => this.metrics.informerErrors.inc({ resource }),
          onRelist: (r) => this.metrics.informerRelists.inc({ resource, reason: r.cause }),
        },
      });
      this.#informers.set(id, inf);
    }
    return inf as unknown as Informer<T>;
  }

  controller<T extends KubeObject>(spec: ControllerSpec<T>): Controller<T> {
    const timeout = spec.reconcileTimeoutMs ?? this.#opts.reconcileTimeoutMs;
    const c = new Controller<T>(
      timeout === undefined ? spec : { ...spec, reconcileTimeoutMs: timeout },
      this.log,
      this.metrics,
      this.#elector,
    );
    this.#controllers.push(c as unknown as Controller<KubeObject>);
    return c;
  }

  /** Informers not yet synced (empty: ready). */
  notReady(): string[] {
    const out: string[] = [];
    if (this.#state !== 'running') out.push(`harness ${this.#state}`);
    for (const inf of this.#informers.values()) if (!inf.hasSynced()) out.push(`informer ${inf.path}`);
    return out;
  }

  /** Starts everything; resolves when caches are synced and workers run. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`harness ${this.name} is ${this.#state}`);
    if (this.#opts.probePort !== undefined) {
      this.#server = await startProbeServer(
        { registry: this.metrics.registry, notReady: () => this.notReady() },
        this.#opts.probePort,
        this.#opts.probeHost,
      );
    }
    this.#memoryReturn = await startMemoryReturn(this.log, (r) => {
      this.metrics.memoryReturned.inc(r.bytes);
      this.metrics.memoryReturnSeconds.inc(r.seconds);
    });
    for (const inf of this.#informers.values()) inf.start();
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync()));
    // Leases only after the caches are full, so a gained shard's keys are all enqueued.
    this.#elector?.start();
    for (const c of this.#controllers) c.start();
    this.#state = 'running';
    this.log.info({ probeAddress: this.#server?.address }, 'harness started');
  }

  get probePort(): number | undefined {
    return this.#server?.port;
  }

  /** host:port the probe server listens on. */
  get probeAddress(): string | undefined {
    return this.#server?.address;
  }

  /**
   * Runs fn on stop(), after the controllers drained and before the Leases are released (e.g. to stop
   * watches the harness does not own, or to write what the replica taking over must read).
   */
  onStop(fn: () => Promise<void>): void {
    this.#onStop.push(fn);
  }

  /** Graceful: stop taking keys, finish in-flight reconciles, release leases, stop informers. */
  async stop(): Promise<void> {
    if (this.#state === 'stopping' || this.#state === 'stopped') return;
    this.#state = 'stopping';
    await Promise.all(this.#controllers.map((c) => c.drain()));
    await Promise.all(this.#onStop.map((fn) => fn()));
    await this.#elector?.stop(true);
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
    await this.#server?.close();
    this.#memoryReturn?.stop();
    this.#state = 'stopped';
    this.log.info('harness stopped');
  }

  /** SIGTERM/SIGINT run stop() once, then exit. */
  stopOnSignals(exit: (code: number) => void = (c) => process.exit(c)): void {
    const onSignal = (sig: NodeJS.Signals) => {
      this.log.info({ signal: sig }, 'shutting down');
      this.stop().then(
        () => exit(0),
        (e) => {
          this.log.error({ err: String(e) }, 'shutdown failed');
          exit(1);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
}
