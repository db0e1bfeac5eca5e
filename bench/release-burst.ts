// The burst the scale benches share (bench/scale.ts, bench/shards.ts): Releases of inline ConfigMaps
// with the default health rules, created by parallel writers, and one watch of every Release that notes
// when each first became Ready and Healthy, so a bench waits on its own cache, not a LIST of N per poll.

import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, PLURAL_RELEASES } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import type { KubeClient } from '../src/kube/client.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { Informer } from '../src/runtime/informer.ts';
import { Transport } from '../src/runtime/transport.ts';
import { releaseOf } from '../test/support/release.ts';
import { DEFAULT_HEALTH } from '../test/support/system.ts';
import { configMapManifests } from './fixtures.ts';

export type Watched = KubeObject & Release;

const CREATE_PARALLEL = 16;

/** The shape of a scale bench's burst: ConfigMaps a Release, namespaces the Releases spread over. */
export const BURST_SHAPE = {
  objects: Number(process.env.CONVOY_BENCH_OBJECTS ?? 10),
  namespaces: Number(process.env.CONVOY_BENCH_NAMESPACES ?? 20),
} as const;

export const secs = (ms: number) => +(ms / 1000).toFixed(1);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const conditionTrue = (r: Release, type: string) =>
  r.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

/** Healthy of what was applied: docs/design.md#healthy-condition. */
export const assessedHealthy = (r: Release) =>
  r.status?.conditions?.some((c) => c.type === 'Healthy' && c.status === 'True' && c.reason === 'Healthy') ===
    true && r.status?.lastAttempted !== undefined;

/** Release `name` in `ns` of `objects` ConfigMaps (numbered after `index`), assessed by the default rules. */
export function benchRelease(
  index: number,
  name: string,
  ns: string,
  objects: number,
  interval: string | undefined,
): Release {
  return releaseOf(ns, name, {
    source: { inline: { manifests: configMapManifests(index, objects) } },
    render: { targetNamespace: ns },
    healthAssessment: DEFAULT_HEALTH,
    ...(interval === undefined ? {} : { syncPolicy: { interval } }),
  });
}

/** Creates `release(i)` for every i in [from, to), CREATE_PARALLEL at a time. */
export async function createReleases(
  admin: KubeClient,
  from: number,
  to: number,
  release: (i: number) => Release,
): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: CREATE_PARALLEL }, async () => {
      for (let i = next++; i < to; i = next++) await admin.create(release(i));
    }),
  );
}

/** When each Release (namespace/name) was first seen Ready, and Healthy, by one watch of all of them. */
export class ReleaseWatch {
  readonly ready = new Map<string, number>();
  readonly healthy = new Map<string, number>();
  readonly informer: Informer<Watched>;

  constructor(kubeConfig: KubeConfig) {
    this.informer = new Informer<Watched>(new Transport(kubeConfig), {
      path: `/apis/${API_VERSION}/${PLURAL_RELEASES}`,
    });
    const see = (r: Watched) => {
      const k = `${r.metadata.namespace}/${r.metadata.name}`;
      if (!this.ready.has(k) && conditionTrue(r, 'Ready')) this.ready.set(k, performance.now());
      if (!this.healthy.has(k) && assessedHealthy(r)) this.healthy.set(k, performance.now());
    };
    this.informer.addHandlers({ add: see, update: (_o, n) => see(n) });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  /**
   * Waits until `count` Releases are both Ready and Healthy (logging progress every 15 s from `t0`), or
   * `timeoutMs` after `t0`: true when they all are.
   */
  async waitAll(count: number, t0: number, timeoutMs: number): Promise<boolean> {
    let lastLog = 0;
    while (this.ready.size < count || this.healthy.size < count) {
      const now = performance.now();
      if (now - t0 > timeoutMs) return false;
      if (now - lastLog > 15_000) {
        lastLog = now;
        console.error(`${secs(now - t0)} s: ${this.progress(count)}`);
      }
      await sleep(250);
    }
    return true;
  }

  progress(count: number): string {
    return `${this.ready.size} Ready, ${this.healthy.size} Healthy of ${count}`;
  }
}
