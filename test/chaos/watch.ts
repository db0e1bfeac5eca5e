// What the chaos suite sees happen, from watches held for the whole run (they survive kube-apiserver
// restarts: the runtime Informer resumes, or relists on a 410): every distinct rollout status of each
// chaos Release in the order received (its transitions, with lastHealthy as written alongside), every
// hook Job ever created (by uid, per hook run) and every pod those Jobs created. A relist can hide a state
// that came and went while the watch was away; relists are counted so a report says how complete it is.
import {
  ANNOTATION_HOOK_NAME,
  ANNOTATION_HOOK_RENDER_REF,
  API_VERSION,
  LABEL_RELEASE,
} from '../../src/api/constants.ts';
import type { Release, RenderRecord, RolloutStatus } from '../../src/api/types.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { CHAOS_LABEL } from './scenario.ts';

/** One distinct (rollout, lastHealthy, lastSuccessful) of a Release as the watch delivered it. */
export interface Snapshot {
  readonly at: number;
  readonly rollout: RolloutStatus | undefined;
  readonly lastHealthy: RenderRecord | undefined;
  readonly lastSuccessful: RenderRecord | undefined;
}

/** One hook run: a hook of one render, and the Jobs (uids) and their pods created for it. */
export interface HookRun {
  readonly namespace: string;
  readonly hook: string;
  readonly renderRef: string;
  readonly jobUids: ReadonlySet<string>;
}

type Meta = KubeObject['metadata'] & {
  uid?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
};

export class ChaosWatch {
  readonly #snapshots = new Map<string, Snapshot[]>();
  readonly #latest = new Map<string, Release>();
  readonly #hookRuns = new Map<
    string,
    { namespace: string; hook: string; renderRef: string; jobUids: Set<string> }
  >();
  readonly #podsByJob = new Map<string, Set<string>>();
  readonly #informers: Informer[];
  #relists = 0;

  constructor(kubeConfig: ControlPlane['kubeConfig']) {
    const transport = new Transport(kubeConfig);
    const hooks = {
      onRelist: (r: { cause: string }) => {
        if (r.cause === 'gone') this.#relists++;
      },
    };
    const releases = new Informer(transport, {
      path: `/apis/${API_VERSION}/releases`,
      labelSelector: `${CHAOS_LABEL}=true`,
      hooks,
    });
    const release = (o: KubeObject) => this.#release(o as unknown as Release);
    releases.addHandlers({ add: release, update: (_o, r) => release(r) });
    const jobs = new Informer(transport, {
      path: '/apis/batch/v1/jobs',
      labelSelector: LABEL_RELEASE,
      hooks,
    });
    jobs.addHandlers({ add: (j) => this.#job(j), update: (_o, j) => this.#job(j) });
    const pods = new Informer(transport, { path: '/api/v1/pods', labelSelector: 'job-name', hooks });
    pods.addHandlers({ add: (p) => this.#pod(p), update: (_o, p) => this.#pod(p) });
    this.#informers = [releases, jobs, pods];
  }

  async start(): Promise<void> {
    for (const i of this.#informers) i.start();
    await Promise.all(this.#informers.map((i) => i.waitForSync()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.stop()));
  }

  /** Relists after a 410 (a watch that could not resume): states in between may not have been seen. */
  get relists(): number {
    return this.#relists;
  }

  /** The Release as last delivered. */
  latest(ns: string, name: string): Release | undefined {
    return this.#latest.get(`${ns}/${name}`);
  }

  snapshots(ns: string, name: string): readonly Snapshot[] {
    return this.#snapshots.get(`${ns}/${name}`) ?? [];
  }

  hookRuns(): readonly HookRun[] {
    return [...this.#hookRuns.values()];
  }

  /** The pods (uids) created for a Job. */
  podsOf(jobUid: string): ReadonlySet<string> {
    return this.#podsByJob.get(jobUid) ?? new Set();
  }

  #release(r: Release): void {
    const key = `${r.metadata.namespace}/${r.metadata.name}`;
    this.#latest.set(key, r);
    const snap: Snapshot = {
      at: Date.now(),
      rollout: r.status?.rollout,
      lastHealthy: r.status?.lastHealthy,
      lastSuccessful: r.status?.lastSuccessful,
    };
    const list = this.#snapshots.get(key) ?? [];
    const last = list.at(-1);
    const same = (a: Snapshot) =>
      JSON.stringify([a.rollout, a.lastHealthy, a.lastSuccessful]) ===
      JSON.stringify([snap.rollout, snap.lastHealthy, snap.lastSuccessful]);
    if (last === undefined || !same(last)) list.push(snap);
    this.#snapshots.set(key, list);
  }

  #job(j: KubeObject): void {
    const meta = j.metadata as Meta;
    const hook = meta.annotations?.[ANNOTATION_HOOK_NAME];
    const renderRef = meta.annotations?.[ANNOTATION_HOOK_RENDER_REF];
    if (hook === undefined || renderRef === undefined || meta.uid === undefined) return;
    const namespace = meta.namespace ?? '';
    const key = `${namespace}/${hook}/${renderRef}`;
    const run = this.#hookRuns.get(key) ?? { namespace, hook, renderRef, jobUids: new Set<string>() };
    run.jobUids.add(meta.uid);
    this.#hookRuns.set(key, run);
  }

  #pod(p: KubeObject): void {
    const meta = p.metadata as Meta;
    const job = meta.labels?.['batch.kubernetes.io/controller-uid'] ?? meta.labels?.['controller-uid'];
    if (job === undefined || meta.uid === undefined) return;
    const pods = this.#podsByJob.get(job) ?? new Set<string>();
    pods.add(meta.uid);
    this.#podsByJob.set(job, pods);
  }
}
