// The notification controller on the controller-manager's harness: the Release informer it shares with
// the release controller (plus informers on Alerts, Providers and Receivers) feeds the Notifier, which
// queues deliveries without waiting; a background loop writes what changed to the status of Alerts (the
// ledger: status.notified), Providers (Ready: delivering or failing, and why) and Receivers (the webhook
// path, and Ready=False while the Secret or its key "token" is missing: read again every 10 s). Watch events are captured as they arrive, so a Progressing that turns Succeeded before the key
// is worked still gets its own message. Keys are worked only on shards this replica holds; statuses are
// written only while it holds one (Providers and Receivers: by the holder of shard 0), so a standby
// replica never writes a ledger it does not keep; a replica that gains a shard reads the Alerts' ledgers
// again before it works that shard's keys, so a failover sends nothing the previous holder delivered.
import type { Logger } from 'pino';
import {
  API_VERSION,
  FIELD_MANAGERS,
  PLURAL_ALERTS,
  PLURAL_PROVIDERS,
  PLURAL_RECEIVERS,
  PLURAL_RELEASES,
} from '../api/constants.ts';
import { formatTime } from '../api/time.ts';
import type { Alert, Condition, Provider, Receiver, Release } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { writeStatus } from '../kube/status.ts';
import { errorMessage } from '../lib/errors.ts';
import {
  type Controller,
  changed,
  generationChanged,
  type Harness,
  type KubeObject,
  keyOf,
  splitKey,
} from '../runtime/index.ts';
import { type Fact, factsOf } from './facts.ts';
import { newNotifyMetrics } from './metrics.ts';
import { Notifier, type NotifierDeps } from './notifier.ts';
import { fetchSender, type Sender } from './send.ts';
import {
  alertStatusValue,
  type ConditionValueOf,
  providerStatusValue,
  type ReceiverSecret,
  receiverStatusValue,
} from './status.ts';

type Cached<T> = T & KubeObject;
const base = `/apis/${API_VERSION}`;
const BY_NAMESPACE = 'notify-namespace';
/** Facts kept per Release between two passes of its key (a bound, not an expected number). */
const MAX_CAPTURED = 8;
const SECRET_TTL_MS = 10_000;
/** How long a stopping replica waits for the sends in flight, so each one ends recorded. */
const STOP_IN_FLIGHT_MS = 15_000;

export interface NotifyControllerOptions {
  readonly client: KubeClient;
  readonly log: Logger;
  /** The release controller's shard of a key; undefined: every key is this replica's. */
  readonly shardOfKey?: (key: string) => number | undefined;
  /** Static sharding: only these keys are this replica's. */
  readonly owns?: (key: string) => boolean;
  /** The shards this replica holds now (elected, or its static one); undefined: it works everything. */
  readonly heldShards?: () => readonly number[];
  /** Field manager of the status writes (default convoy-notify; one per replica when sharded). */
  readonly fieldManager?: string;
  readonly sender?: Sender;
  readonly queue?: NotifierDeps['queue'];
  /** How often changed statuses are written (default 1 s). */
  readonly flushMs?: number;
  readonly now?: () => number;
  readonly workers?: number;
}

export interface NotifyController {
  readonly controller: Controller<Cached<Release>>;
  readonly notifier: Notifier;
  /** Writes what is pending, stops the queue (waiting deliveries are planned again after a restart). */
  stop(): Promise<void>;
}

export function registerNotifyController(harness: Harness, opts: NotifyControllerOptions): NotifyController {
  const now = opts.now ?? Date.now;
  const log = opts.log;
  const fieldManager = opts.fieldManager ?? FIELD_MANAGERS.notify;
  const informer = <T>(plural: string, stripManagedFields = true) =>
    harness.informer<Cached<T>>({ path: `${base}/${plural}`, stripManagedFields });
  // Releases: shared by path with the release and fleet controllers of this process, so the same options
  // they ask for (managedFields kept).
  const releases = informer<Release>(PLURAL_RELEASES, false);
  const alerts = informer<Alert>(PLURAL_ALERTS);
  const providers = informer<Provider>(PLURAL_PROVIDERS);
  const receivers = informer<Receiver>(PLURAL_RECEIVERS);
  const nsOf = (o: KubeObject) => (o.metadata?.namespace ? [o.metadata?.namespace] : []);
  releases.addIndex(BY_NAMESPACE, nsOf);
  alerts.addIndex(BY_NAMESPACE, nsOf);

  const secrets = new Map<string, { at: number; data: Record<string, string> | undefined }>();
  const readSecret = async (ns: string, name: string) => {
    const k = `${ns}/${name}`;
    const hit = secrets.get(k);
    if (hit !== undefined && now() - hit.at < SECRET_TTL_MS) return hit.data;
    const s = await opts.client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: ns,
      name,
    });
    const data =
      s === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(s.data ?? {}).map(([key, v]) => [key, Buffer.from(v, 'base64').toString('utf8')]),
          );
    secrets.set(k, { at: now(), data });
    return data;
  };

  const dirtyProviders = new Set<string>();
  const notifier = new Notifier({
    alerts: (ns) => alerts.cache.byIndex(BY_NAMESPACE, ns),
    provider: (ns, name) => providers.cache.get(`${ns}/${name}`),
    secret: readSecret,
    sender: opts.sender ?? fetchSender,
    now,
    metrics: newNotifyMetrics(harness.metrics.registry),
    ...(opts.queue === undefined ? {} : { queue: opts.queue }),
    onProviderHealth: (k) => dirtyProviders.add(k),
    onFailure: (d, final, why) =>
      log.warn(
        {
          alert: d.alertKey,
          provider: d.providerKey,
          release: `${d.release.namespace}/${d.release.name}`,
          event: d.fact.event,
          final,
          why,
        },
        'notification not delivered',
      ),
  });

  // Facts seen in watch events, kept until the key is worked (a bounded list per Release).
  const captured = new Map<string, Fact[]>();
  const factKeys = (r: Release) =>
    factsOf(r)
      .map((f) => f.key)
      .join(',');
  // Only while the key is this replica's: a standby's captures would replay, after a failover, the
  // transitions the previous holder delivered.
  const mine = (k: string) => {
    if (opts.owns !== undefined) return opts.owns(k);
    const shard = opts.shardOfKey?.(k);
    const held = opts.heldShards?.();
    return shard === undefined || held === undefined || held.includes(shard);
  };
  releases.addHandlers({
    update: (o, n) => {
      if (o === n || !mine(keyOf(n))) return;
      const before = new Set(factsOf(o).map((f) => f.key));
      const fresh = factsOf(n).filter((f) => !before.has(f.key));
      if (fresh.length === 0) return;
      const k = keyOf(n);
      const list = captured.get(k) ?? [];
      list.push(...fresh);
      captured.set(k, list.slice(-MAX_CAPTURED));
    },
    delete: (o) => captured.delete(keyOf(o)),
  });

  // A gained shard: its Releases were another replica's until now, and so was what the ledger says of them.
  let held = new Set<number>();
  let ledgersRead: Promise<void> = Promise.resolve();
  const readLedgersOnGain = (): Promise<void> => {
    if (opts.heldShards === undefined) return ledgersRead;
    const now = opts.heldShards();
    const gained = now.some((s) => !held.has(s));
    held = new Set(now);
    if (gained) {
      ledgersRead = opts.client.list<Alert>({ apiVersion: API_VERSION, kind: 'Alert' }).then(
        (list) => {
          for (const a of list) notifier.ledger.reseed(keyOf(a as Cached<Alert>), a);
        },
        (err: unknown) => {
          held = new Set();
          throw err;
        },
      );
    }
    return ledgersRead;
  };

  const controller = harness.controller<Cached<Release>>({
    name: 'notify',
    primary: releases,
    workers: opts.workers ?? 2,
    updateFilter: changed(factKeys),
    ...(opts.shardOfKey === undefined ? {} : { shardOfKey: opts.shardOfKey }),
    reconcile: async (key) => {
      const seen = captured.get(key) ?? [];
      captured.delete(key);
      if (opts.owns !== undefined && !opts.owns(key)) return { kind: 'done' };
      try {
        await readLedgersOnGain();
      } catch (error) {
        captured.set(key, [...seen, ...(captured.get(key) ?? [])].slice(-MAX_CAPTURED));
        return { kind: 'error', error };
      }
      const release = releases.cache.get(key);
      const { namespace = '', name } = splitKey(key);
      if (release === undefined) notifier.forget(namespace, name);
      else notifier.observe(release, seen);
      return { kind: 'done' };
    },
  });
  const releasesOfNamespace = (o: KubeObject) =>
    releases.cache.byIndex(BY_NAMESPACE, o.metadata?.namespace ?? '').map(keyOf);
  controller.watch({ informer: alerts, updateFilter: generationChanged, keys: releasesOfNamespace });
  controller.watch({ informer: providers, updateFilter: generationChanged, keys: releasesOfNamespace });
  alerts.addHandlers({ delete: (a) => notifier.ledger.forgetAlert(keyOf(a)) });

  // --- status writes ----------------------------------------------------------------------------------
  const stamp = (t = now()) => formatTime(t);
  const write = async (
    kind: 'Alert' | 'Provider' | 'Receiver',
    obj: KubeObject,
    status: Record<string, unknown>,
  ) => {
    await writeStatus(
      opts.client,
      { kind, namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' },
      status,
      {
        fieldManager,
      },
    );
  };
  const conditionOf = (
    prior: { conditions?: Condition[] } | undefined,
    v: ConditionValueOf,
    generation: number | undefined,
  ): Condition => {
    // lastTransitionTime moves only when the status does (metav1.Condition).
    const old = prior?.conditions?.find((c) => c.type === 'Ready');
    const since = old !== undefined && old.status === v.status ? old.lastTransitionTime : stamp();
    return {
      type: 'Ready',
      ...v,
      lastTransitionTime: since,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    };
  };
  const conditionDiffers = (prior: { conditions?: Condition[] } | undefined, v: ConditionValueOf) => {
    const c = prior?.conditions?.find((x) => x.type === 'Ready');
    return c === undefined || c.status !== v.status || c.reason !== v.reason || c.message !== v.message;
  };

  let flushing: Promise<void> | undefined;
  const flush = async () => {
    const shards = opts.heldShards?.();
    if (shards !== undefined && shards.length === 0) return;
    const dirtyAlerts = new Set(notifier.ledger.dirty());
    for (const a of alerts.cache.list()) {
      const k = keyOf(a);
      const v = alertStatusValue(
        a,
        providers.cache.get(`${a.metadata.namespace}/${a.spec.providerRef.name}`),
      );
      const stale = a.status?.observedGeneration !== a.metadata.generation || conditionDiffers(a.status, v);
      if (!stale && !dirtyAlerts.has(k)) continue;
      notifier.ledger.seed(k, a);
      notifier.ledger.markClean(k);
      try {
        await write('Alert', a, {
          observedGeneration: a.metadata.generation,
          conditions: [conditionOf(a.status, v, a.metadata.generation)],
          notified: notifier.ledger.entries(k, fieldManager !== FIELD_MANAGERS.notify),
        });
      } catch (err) {
        notifier.ledger.markDirty(k);
        log.warn({ alert: k, err: String(err) }, 'Alert status not written; retrying');
      }
    }
    // One writer of what deliveries learnt about Providers and of the Receivers' paths.
    if (shards !== undefined && !shards.includes(0)) return;
    for (const p of providers.cache.list()) {
      const k = keyOf(p);
      const v = providerStatusValue(p, notifier.health(k));
      const stale =
        p.status?.observedGeneration !== p.metadata.generation || conditionDiffers(p.status, v.condition);
      const lastDelivery = v.lastDeliveryTime;
      const deliveryStale =
        lastDelivery !== undefined &&
        Date.parse(lastDelivery) - Date.parse(p.status?.lastDeliveryTime ?? '1970-01-01T00:00:00Z') >= 60_000;
      if (!stale && !deliveryStale && !dirtyProviders.has(k)) continue;
      dirtyProviders.delete(k);
      try {
        await write('Provider', p, {
          observedGeneration: p.metadata.generation,
          conditions: [conditionOf(p.status, v.condition, p.metadata.generation)],
          ...(lastDelivery === undefined ? {} : { lastDeliveryTime: stamp(Date.parse(lastDelivery)) }),
        });
      } catch (err) {
        dirtyProviders.add(k);
        log.warn({ provider: k, err: String(err) }, 'Provider status not written; retrying');
      }
    }
    for (const r of receivers.cache.list()) {
      const secret: ReceiverSecret = await readSecret(r.metadata.namespace ?? '', r.spec.secretRef.name).then(
        (data) => (data === undefined ? { kind: 'missing' } : { kind: 'found', keys: Object.keys(data) }),
        (err: unknown) => ({ kind: 'unreadable', why: errorMessage(err).slice(0, 256) }),
      );
      const v = receiverStatusValue(r, secret);
      if (
        r.status?.observedGeneration === r.metadata.generation &&
        r.status?.webhookPath === v.webhookPath &&
        !conditionDiffers(r.status, v.condition)
      )
        continue;
      try {
        await write('Receiver', r, {
          observedGeneration: r.metadata.generation,
          conditions: [conditionOf(r.status, v.condition, r.metadata.generation)],
          webhookPath: v.webhookPath,
        });
      } catch (err) {
        log.warn({ receiver: keyOf(r), err: String(err) }, 'Receiver status not written; retrying');
      }
    }
  };
  const runFlush = () => {
    flushing ??= flush()
      .catch((err: unknown) => log.error({ err: String(err) }, 'notification status pass failed'))
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  };
  const timer = setInterval(() => {
    if (harness.notReady().length === 0) void runFlush();
  }, opts.flushMs ?? 1000);
  timer.unref();

  return {
    controller,
    notifier,
    async stop() {
      clearInterval(timer);
      notifier.stop();
      await notifier.idle(STOP_IN_FLIGHT_MS);
      await flushing;
      await runFlush();
    },
  };
}
