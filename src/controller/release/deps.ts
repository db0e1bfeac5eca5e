// What one reconcile needs from the process around it: clients, the render store, sources, the caches
// it reads instead of the API, and the clock. Built once by controller.ts; tests build their own.
import type { Logger } from 'pino';
import type { Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import type { MergedInventory } from '../../kube/inventory-parts.ts';
import type { Renderer } from '../../render/renderer.ts';
import type { Sources } from '../../render/source.ts';
import type { RenderType } from '../../render/types.ts';
import type { RenderStore } from '../../store/types.ts';
import type { Target } from './act/target.ts';
import { type ClusterWaveInput, DryRunMemo } from './decide/sync/index.ts';
import type { SyncRequest } from './watch/sync-requests.ts';

export interface ReleaseDeps {
  /** Unimpersonated client of the cluster convoy runs in: Release status, inventory, render store, Secrets. */
  readonly local: KubeClient;
  readonly store: RenderStore;
  readonly sources: Sources;
  /** The tool renderers (Kustomize, Helm); Plain needs none. */
  readonly renderers?: Partial<Record<RenderType, Renderer>>;
  readonly resolveTarget: (release: Release) => Promise<Target>;
  /** Whether the observer of the Release's shard is live (docs/design.md#verdict). */
  readonly observerLive: (release: Release) => boolean;
  /** The ReleaseInventory of a Release, every part, as the informer cache has it. */
  readonly cachedInventory: (namespace: string, name: string) => MergedInventory | undefined;
  /** The cluster wave gate's view of the Release's train; absent: no train (gate open). */
  readonly clusterWave?: (release: Release, revision: string) => ClusterWaveInput;
  readonly now: () => number;
  readonly log: Logger;
  /** Where Events go (retried in the background); absent: sent at once, a failure logged. */
  readonly events?: { record(event: object, onSent?: () => void): void };
  /** What this process remembers between reconciles; one per controller (newProcessMemory). */
  readonly memory: ProcessMemory;
  /**
   * Aborted when this reconcile passes its deadline or is superseded (the Release is being deleted, a
   * sync was requested): the source fetch stops waiting at once.
   */
  readonly signal?: AbortSignal;
  /**
   * Told of every Release this reconcile wrote (finalizer, status) and what it replaced, so the next
   * reconcile of the key reads the write even while the informer cache still shows the old object.
   */
  readonly noteWritten?: (replaced: Release, written: Release) => void;
  /**
   * A sync request (a push, `convoy sync`) this reconcile answers: the source is read anew, not taken
   * from a read started before the request was seen (docs/design.md#requested-syncs).
   */
  readonly syncRequest?: SyncRequest;
  /** Test seam for crash safety: called right after a wave is applied, before it is recorded. */
  readonly afterWaveApplied?: (wave: number) => void;
}

/**
 * What the release controller remembers between reconciles, owned by the controller object (one per
 * process, lost at a restart by design: each memo only saves requests, and a new process starts from what
 * the API says). Required as a whole, so no caller can leave one memo out and silently change behaviour.
 */
export interface ProcessMemory {
  /**
   * Release uid → the rollout transition (rolloutKey) whose Event this process recorded. A persisted
   * transition missing here is one an earlier process may have died before announcing (events.ts).
   */
  readonly eventedRollouts: Map<string, string>;
  /**
   * Release uid → the rollout transition whose Event the API server is known to hold (sent, not only
   * queued). Before a status write replaces a transition missing here, its Event is created first.
   */
  readonly sentRollouts: Map<string, string>;
  /**
   * Release uid → the renders that may be stored for it, as far as this process knows: what its last gc
   * kept plus every render put since (store/keep.ts gcDue). A uid missing: not collected by this process
   * yet.
   */
  readonly mayBeStored: Map<string, Set<string>>;
  /**
   * Release uids whose inventory this process has opened for writing. A Release missing here, never
   * attempted and without an inventory in the (synced) cache has none: its sync starts from nothing
   * instead of reading the API (inventory-writer.ts openInventory).
   */
  readonly inventoriesOpened: Set<string>;
  /** The renders this process dry-ran in full (decide/sync/dry-run-memo.ts). */
  readonly dryRuns: DryRunMemo<KubeClient>;
}

export function newProcessMemory(): ProcessMemory {
  return {
    eventedRollouts: new Map(),
    sentRollouts: new Map(),
    mayBeStored: new Map(),
    inventoriesOpened: new Set(),
    dryRuns: new DryRunMemo(),
  };
}
