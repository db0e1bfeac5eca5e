// Watch recorders for e2e tests: every watch event of some collections, numbered in the order this
// process received it (so a test can say "this happened before that" without polling between steps),
// and the distinct status.rollout values one Release went through.
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release, RolloutStatus } from '../../src/api/types.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { type WaitOptions, waitFor } from './wait.ts';

export interface Seen {
  readonly seq: number;
  /** Local time it arrived. */
  readonly at: number;
  readonly type: 'add' | 'update' | 'delete';
  readonly kind: string;
  readonly name: string;
  readonly object: KubeObject;
}

export interface Watched {
  readonly kind: string;
  /** Collection path, e.g. /api/v1/namespaces/ns/configmaps. */
  readonly path: string;
  readonly fieldSelector?: string;
}

/**
 * Numbers every event of the watched collections in the order received. Events of one object arrive
 * in order; across objects the order is the order of arrival, which follows causality for the
 * seconds-apart steps these tests compare.
 */
export class Recorder {
  readonly events: Seen[] = [];
  readonly #informers: Informer[] = [];
  #seq = 0;

  constructor(kubeConfig: ControlPlane['kubeConfig'], watched: readonly Watched[]) {
    const transport = new Transport(kubeConfig);
    for (const { kind, path, fieldSelector } of watched) {
      const inf = new Informer(transport, {
        path,
        ...(fieldSelector === undefined ? {} : { fieldSelector }),
      });
      const push = (type: Seen['type']) => (o: KubeObject) =>
        this.events.push({
          seq: this.#seq++,
          at: Date.now(),
          type,
          kind,
          name: o.metadata?.name ?? '',
          object: o,
        });
      const updated = push('update');
      inf.addHandlers({ add: push('add'), update: (_old, now) => updated(now), delete: push('delete') });
      this.#informers.push(inf);
    }
  }

  /** Jobs, ConfigMaps, Deployments, Releases and ReleaseInventories of a namespace (or only `kinds`). */
  static forNamespace(kubeConfig: ControlPlane['kubeConfig'], ns: string, kinds: string[] = []): Recorder {
    const all = [
      { kind: 'Job', path: `/apis/batch/v1/namespaces/${ns}/jobs` },
      { kind: 'ConfigMap', path: `/api/v1/namespaces/${ns}/configmaps` },
      { kind: 'Deployment', path: `/apis/apps/v1/namespaces/${ns}/deployments` },
      { kind: 'Release', path: `/apis/${API_VERSION}/namespaces/${ns}/releases` },
      { kind: 'ReleaseInventory', path: `/apis/${API_VERSION}/namespaces/${ns}/releaseinventories` },
    ];
    return new Recorder(
      kubeConfig,
      all.filter((k) => kinds.length === 0 || kinds.includes(k.kind)),
    );
  }

  async start(): Promise<void> {
    for (const i of this.#informers) i.start();
    await Promise.all(this.#informers.map((i) => i.waitForSync()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.stop()));
  }

  /** Runs `body` with this recorder started, and stops it however `body` ends. */
  async during<T>(body: (rec: this) => Promise<T>): Promise<T> {
    await this.start();
    try {
      return await body(this);
    } finally {
      await this.stop();
    }
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

  /**
   * seq of the first event matching, waiting for it to arrive: a state read through a GET can be
   * ahead of this recorder's watch of the same object, so a test that just saw it must wait here.
   */
  async seen(what: string, pred: (s: Seen) => boolean, opts: WaitOptions = {}): Promise<number> {
    try {
      return await waitFor(what, async () => this.first(pred)?.seq, opts);
    } catch (e) {
      throw new Error(`never seen: ${what}\n${this.summary()}`, { cause: e });
    }
  }

  /**
   * The events in order, for a failure message: a Job's counts and conditions and an inventory's hook
   * states with them (what a hook waits on), Releases left out (their status is in the message already).
   */
  summary(): string {
    return this.events
      .filter((e) => e.kind !== 'Release')
      .map((e) => {
        const detail = e.type === 'delete' ? '' : detailOf(e);
        return `${e.seq} ${e.type} ${e.kind}/${e.name}${detail === '' ? '' : ` ${detail}`}`;
      })
      .join('\n');
  }
}

function detailOf(e: Seen): string {
  const o = e.object as {
    status?: {
      active?: number;
      succeeded?: number;
      failed?: number;
      conditions?: { type: string; status: string }[];
    };
    hooks?: { name: string; state?: string }[];
  };
  if (e.kind === 'Job') {
    const st = o.status ?? {};
    const conditions = (st.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);
    return `active=${st.active ?? 0} succeeded=${st.succeeded ?? 0} failed=${st.failed ?? 0} [${conditions.join(',')}]`;
  }
  if (e.kind === 'ReleaseInventory')
    return `hooks [${(o.hooks ?? []).map((h) => `${h.name}:${h.state ?? '-'}`).join(',')}]`;
  return '';
}

/** A recorder event that adds the object `name`. */
export const added = (name: string) => (s: Seen) => s.type === 'add' && s.name === name;

/** Every distinct status.rollout the watch delivered for one Release, with the local time it arrived. */
export interface RolloutLog {
  readonly seen: readonly { readonly at: number; readonly rollout: RolloutStatus | undefined }[];
  stop(): Promise<void>;
}

export async function recordRollouts(cp: ControlPlane, ns: string, name: string): Promise<RolloutLog> {
  const rec = new Recorder(cp.kubeConfig, [
    {
      kind: 'Release',
      path: `/apis/${API_VERSION}/namespaces/${ns}/releases`,
      fieldSelector: `metadata.name=${name}`,
    },
  ]);
  await rec.start();
  return {
    get seen() {
      const out: { at: number; rollout: RolloutStatus | undefined }[] = [];
      for (const e of rec.events) {
        if (e.type === 'delete') continue;
        const rollout = (e.object as unknown as Release).status?.rollout;
        if (JSON.stringify(out.at(-1)?.rollout) !== JSON.stringify(rollout)) out.push({ at: e.at, rollout });
      }
      return out;
    },
    stop: () => rec.stop(),
  };
}
