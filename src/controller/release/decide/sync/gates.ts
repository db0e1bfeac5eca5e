// stageGates' decision: may this reconcile apply render R? Two gates, in order: the manual
// sync mode (a person approves each new render) and the cluster wave gate (a revision reaches
// a Cluster of wave N only after every Cluster of a lower wave has finished it).
//
// Cluster wave gate, precisely: the "train" of a Release is the Releases of its namespace with
// the same source identity (sourceIdentity) whose Cluster has a spec.wave. A Release whose
// Cluster has no wave (or that targets the local cluster) is in no train: its gate is open. A
// peer on a lower wave has finished revision V when its status.lastSuccessful.revision is V and
// its rollout for V, if it has one, is Succeeded. A Failed or RolledBack peer holds the train
// until a person fixes it — stopping the spread of a bad revision is the point of waves. A
// forced sync opens the manual gate, not the wave gate.
import { createHash } from 'node:crypto';
import type { RolloutState } from '../../../../api/types.ts';

export type HeldReason = 'WaitingForApproval' | 'WaitingForClusterWave' | 'Suspended';

export type GateDecision =
  | { readonly kind: 'open' }
  | { readonly kind: 'held'; readonly reason: HeldReason; readonly message: string };

export type ClusterWaveGate = { readonly kind: 'open' } | { readonly kind: 'held'; readonly message: string };

export type GateInput = {
  /** spec.syncPolicy.mode (default Auto). */
  readonly mode: 'Auto' | 'Manual' | undefined;
  readonly renderRef: string;
  /** The convoy.kumodo.io/approved-render annotation. */
  readonly approvedRender: string | undefined;
  readonly forcedSyncPending: boolean;
  /**
   * status.lastSuccessful.renderRef: a render already applied is not new, so re-applying it
   * (interval, self-heal) needs no fresh approval, e.g. after a switch from Auto to Manual.
   */
  readonly appliedRender: string | undefined;
  readonly clusterWave: ClusterWaveGate;
};

/** sync-requested-at is deliberately not an input: the observer's wake-ups never open a gate. */
export function gateDecision(input: GateInput): GateDecision {
  if (input.mode === 'Manual' && !approved(input)) {
    return {
      kind: 'held',
      reason: 'WaitingForApproval',
      message: `render ${short(input.renderRef)} waits for approval (manual sync mode)`,
    };
  }
  if (input.clusterWave.kind === 'held') {
    return { kind: 'held', reason: 'WaitingForClusterWave', message: input.clusterWave.message };
  }
  return { kind: 'open' };
}

function approved(input: GateInput): boolean {
  return (
    input.approvedRender === input.renderRef ||
    input.forcedSyncPending ||
    input.appliedRender === input.renderRef
  );
}

/** A Release on a lower cluster wave, as the wave gate sees it. */
export type WavePeer = {
  readonly release: string;
  readonly cluster: string;
  readonly clusterWave: number;
  readonly lastSuccessfulRevision: string | undefined;
  readonly rollout: { readonly state: RolloutState; readonly revision?: string | undefined } | undefined;
};

export type ClusterWaveInput = {
  /** spec.wave of this Release's Cluster; undefined: not in a train. */
  readonly wave: number | undefined;
  readonly revision: string;
  /** The other members of the train (see the header), any wave. */
  readonly peers: readonly WavePeer[];
};

const SHOWN = 3;

export function clusterWaveGate(input: ClusterWaveInput): ClusterWaveGate {
  const { wave, revision } = input;
  if (wave === undefined) return { kind: 'open' };
  const waiting = input.peers
    .filter((p) => p.clusterWave < wave)
    .map((p) => ({ p, why: unfinished(p, revision) }))
    .filter((x): x is { p: WavePeer; why: string } => x.why !== undefined)
    .sort((a, b) => a.p.clusterWave - b.p.clusterWave || a.p.release.localeCompare(b.p.release));
  if (waiting.length === 0) return { kind: 'open' };
  const shown = waiting
    .slice(0, SHOWN)
    .map(({ p, why }) => `${p.release} (cluster ${p.cluster}, wave ${p.clusterWave}) ${why}`);
  const more = waiting.length > SHOWN ? `; and ${waiting.length - SHOWN} more` : '';
  return {
    kind: 'held',
    message: `revision ${revision} waits for lower cluster waves: ${shown.join('; ')}${more}`,
  };
}

function unfinished(p: WavePeer, revision: string): string | undefined {
  if (p.rollout?.revision === revision && p.rollout.state !== 'Succeeded') {
    return `is ${p.rollout.state} for it`;
  }
  if (p.lastSuccessfulRevision !== revision) {
    return p.lastSuccessfulRevision === undefined
      ? 'has applied nothing yet'
      : `has applied ${p.lastSuccessfulRevision}`;
  }
  return undefined;
}

/** Structural subset of spec.source. */
export type SourceLike = {
  readonly git?: { readonly url: string; readonly path?: string | undefined } | undefined;
  readonly oci?: { readonly url: string } | undefined;
  readonly chart?: { readonly url: string; readonly name: string } | undefined;
  readonly inline?: { readonly manifests: string } | undefined;
};

/**
 * What makes two Releases the same application for the wave gate: the repository and path
 * (not the ref: one train may move a branch), the artifact URL, or the inline manifests.
 */
export function sourceIdentity(source: SourceLike): string {
  if (source.git) return `git:${source.git.url}#${normalizePath(source.git.path)}`;
  if (source.oci) return `oci:${source.oci.url}`;
  if (source.chart) return `chart:${source.chart.url}#${source.chart.name}`;
  if (source.inline) return `inline:${createHash('sha256').update(source.inline.manifests).digest('hex')}`;
  return 'none';
}

function normalizePath(p: string | undefined): string {
  return (p ?? '')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

function short(renderRef: string): string {
  return renderRef.length > 19 ? `${renderRef.slice(0, 19)}…` : renderRef;
}
