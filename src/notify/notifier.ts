// The delivery path between a Release's status and a provider: observe() plans the facts of a Release
// for every Alert of its namespace (select.ts) against the ledger and hands the ones to send to the
// delivery queue; the queue's send resolves the Provider and its Secret, builds the request
// (providers.ts) and posts it (send.ts). observe() never waits on the network, so the controller calling
// it is never slowed by a provider. Provider health (for its status and metric) is kept here, by
// Provider. Lookups of Alerts, Providers and Secrets are injected: the controller passes informer caches
// and the API, the bench and unit tests plain maps.
import { parseDuration } from '../api/duration.ts';
import type { Alert, Provider, Release } from '../api/types.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import { splitKey } from '../runtime/cache.ts';
import { type Fact, factsOf } from './facts.ts';
import { Ledger } from './ledger.ts';
import type { NotifyMetrics } from './metrics.ts';
import { buildRequest, type ProviderSecret } from './providers.ts';
import { DeliveryQueue, type DeliveryQueueOptions, type Final, type Outcome } from './queue.ts';
import { planFacts } from './select.ts';
import type { Sender } from './send.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 60_000;

export interface Delivery {
  readonly alertKey: string;
  readonly providerKey: string;
  readonly release: { readonly namespace: string; readonly name: string; readonly gitUrl?: string };
  readonly fact: Fact;
  /** When observe() planned it (ms): the delay metric counts from here. */
  readonly plannedAt: number;
}

/** What a Provider's status says, kept per Provider by the deliveries through it. */
export type ProviderHealth =
  | { readonly kind: 'ok'; readonly lastDeliveryTime: string }
  | {
      readonly kind: 'failing';
      readonly why: string;
      readonly since: string;
      readonly lastDeliveryTime?: string;
    };

export interface NotifierDeps {
  readonly alerts: (namespace: string) => readonly Alert[];
  readonly provider: (namespace: string, name: string) => Provider | undefined;
  /** The Secret's data, decoded; undefined when it does not exist. */
  readonly secret: (namespace: string, name: string) => Promise<Readonly<Record<string, string>> | undefined>;
  readonly sender: Sender;
  readonly now?: () => number;
  readonly metrics?: NotifyMetrics;
  readonly queue?: Pick<
    DeliveryQueueOptions<Delivery>,
    'maxItems' | 'concurrency' | 'baseDelayMs' | 'maxDelayMs' | 'retryWindowMs'
  >;
  /** A Provider's health changed (write its status). */
  readonly onProviderHealth?: (providerKey: string) => void;
  /** A delivery ended otherwise than delivered or skipped: for the log (never holds a secret). */
  readonly onFailure?: (d: Delivery, final: Final, why: string | undefined) => void;
}

/** A Provider's timeout: default 10 s, at most 1 min (the CRD checks the syntax; 0 is the default). */
export function timeoutMsOf(spec: Provider['spec']): number {
  const ms = spec.timeout === undefined ? 0 : parseDuration(spec.timeout);
  return ms <= 0 ? DEFAULT_TIMEOUT_MS : Math.min(MAX_TIMEOUT_MS, ms);
}

export class Notifier {
  readonly ledger = new Ledger();
  readonly #d: NotifierDeps;
  readonly #queue: DeliveryQueue<Delivery>;
  readonly #now: () => number;
  readonly #health = new Map<string, ProviderHealth>();

  constructor(deps: NotifierDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    const m = deps.metrics;
    this.#queue = new DeliveryQueue<Delivery>({
      ...deps.queue,
      now: this.#now,
      send: (d) => this.#send(d),
      onDepth: (n) => m?.queueDepth.set(n),
      onRetry: (d, why) => {
        m?.deliveries.inc({ provider: d.providerKey, result: 'retried' });
        this.#setHealth(d.providerKey, why);
      },
      onFinal: (d, final, why) => this.#final(d, final, why),
    });
  }

  /** Deliveries waiting or in flight. */
  get queued(): number {
    return this.#queue.size;
  }

  idle(timeoutMs?: number): Promise<void> {
    return this.#queue.idle(timeoutMs);
  }

  stop(): void {
    this.#queue.stop();
  }

  health(providerKey: string): ProviderHealth | undefined {
    return this.#health.get(providerKey);
  }

  /**
   * Plans the Release's facts — those `captured` from watch events since the last call, then the ones its
   * status holds now — for every Alert of its namespace. Returns how many deliveries were queued.
   */
  observe(release: Release, captured: readonly Fact[] = []): number {
    const ns = namespaceOf(release);
    const name = nameOf(release);
    const seen = new Set<string>();
    const facts = [...captured, ...factsOf(release)].filter((f) => !seen.has(f.key) && seen.add(f.key));
    const now = this.#now();
    const stamp = new Date(now).toISOString();
    let queued = 0;
    for (const alert of this.#d.alerts(ns)) {
      const alertKey = `${ns}/${nameOf(alert)}`;
      this.ledger.seed(alertKey, alert);
      const plans = planFacts({
        alert,
        release,
        facts,
        lastPlanned: (cls) => this.ledger.lastPlanned(alertKey, name, cls),
      });
      for (const { fact, verdict } of plans) {
        this.ledger.planned(alertKey, name, fact.class, fact.key);
        if (verdict === 'baseline') {
          this.ledger.delivered(alertKey, name, fact.class, fact.key, stamp);
          continue;
        }
        const providerKey = `${ns}/${alert.spec.providerRef.name}`;
        const gitUrl = release.spec.source.git?.url;
        const d: Delivery = {
          alertKey,
          providerKey,
          release: { namespace: ns, name, ...(gitUrl === undefined ? {} : { gitUrl }) },
          fact,
          plannedAt: now,
        };
        if (this.#queue.push(`${alertKey}\0${name}`, d)) queued++;
        else {
          this.ledger.abandoned(alertKey, name, fact.class, fact.key);
          this.#d.metrics?.deliveries.inc({ provider: providerKey, result: 'queueFull' });
        }
      }
    }
    return queued;
  }

  /** A Release that is gone. */
  forget(namespace: string, name: string): void {
    this.ledger.forgetRelease(namespace, name);
  }

  async #send(d: Delivery): Promise<Outcome> {
    const { namespace: ns = '', name } = splitKey(d.providerKey);
    const provider = this.#d.provider(ns, name);
    if (provider === undefined) return { kind: 'retry', why: `Provider ${name} not found` };
    if (provider.spec.suspend === true) return { kind: 'skipped', why: 'the Provider is suspended' };
    let secret: ProviderSecret = {};
    const ref = provider.spec.secretRef;
    if (ref !== undefined) {
      const data = await this.#d.secret(ns, ref.name);
      if (data === undefined) return { kind: 'retry', why: `Secret ${ref.name} not found` };
      secret = {
        ...(data.token === undefined ? {} : { token: data.token.trim() }),
        ...(data.address === undefined ? {} : { address: data.address.trim() }),
      };
    }
    const built = buildRequest(provider.spec, secret, d.release, d.fact, new Date(this.#now()).toISOString());
    switch (built.kind) {
      case 'notApplicable':
        return { kind: 'skipped', why: built.why };
      case 'invalid':
        return { kind: 'refused', why: built.message };
      case 'request': {
        const r = await this.#d.sender(built.request, timeoutMsOf(provider.spec));
        return r.kind === 'delivered' ? { kind: 'delivered' } : r;
      }
    }
  }

  /** Records the fact as handled for the alert in the ledger, so it is not planned again. */
  #handled(d: Delivery): void {
    this.ledger.delivered(
      d.alertKey,
      d.release.name,
      d.fact.class,
      d.fact.key,
      new Date(this.#now()).toISOString(),
    );
  }

  #final(d: Delivery, final: Final, why: string | undefined): void {
    const m = this.#d.metrics;
    const name = d.release.name;
    switch (final) {
      case 'delivered':
      case 'skipped': {
        this.#handled(d);
        if (final === 'delivered') {
          m?.delay.observe((this.#now() - d.plannedAt) / 1000);
          this.#setHealth(d.providerKey, undefined);
        }
        break;
      }
      case 'refused':
        // Retrying cannot mend it: recorded as handled, so it is not planned again and again.
        this.#handled(d);
        this.#setHealth(d.providerKey, why ?? 'refused');
        this.#d.onFailure?.(d, final, why);
        break;
      case 'expired':
        this.ledger.abandoned(d.alertKey, name, d.fact.class, d.fact.key);
        this.#setHealth(d.providerKey, why ?? 'retries exhausted');
        this.#d.onFailure?.(d, final, why);
        break;
      case 'stopped':
        this.ledger.abandoned(d.alertKey, name, d.fact.class, d.fact.key);
        break;
    }
    m?.deliveries.inc({ provider: d.providerKey, result: final });
  }

  #setHealth(providerKey: string, failure: string | undefined): void {
    const prior = this.#health.get(providerKey);
    const now = new Date(this.#now()).toISOString();
    let next: ProviderHealth;
    if (failure === undefined) next = { kind: 'ok', lastDeliveryTime: now };
    else {
      const last = prior?.lastDeliveryTime;
      next = {
        kind: 'failing',
        why: failure,
        since: prior?.kind === 'failing' ? prior.since : now,
        ...(last === undefined ? {} : { lastDeliveryTime: last }),
      };
    }
    this.#health.set(providerKey, next);
    this.#d.metrics?.failing.set({ provider: providerKey }, next.kind === 'failing' ? 1 : 0);
    const changed =
      prior === undefined ||
      prior.kind !== next.kind ||
      (prior.kind === 'failing' && next.kind === 'failing' && prior.why !== next.why);
    if (changed) this.#d.onProviderHealth?.(providerKey);
  }
}
