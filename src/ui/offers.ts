// Which of the Release page's spec writes are offered, and what they would do: a Rollback that would
// only pin the render already running is shown disabled with that reason, and an Unpin right after a
// rollback warns that it re-applies the revision that rolled back (it did, a minute later, in a test
// by hand). The page says the consequence before the click, not after. Pure.
import { shortRevision } from '../api/revision.ts';
import type { Release } from '../api/types.ts';

/** What an Unpin would re-apply when the source's render is the one that just rolled back. */
export interface UnpinWarning {
  readonly renderRef: string;
  readonly revision?: string;
  /** When it rolled back (status.rollout.finishedAt), when recorded. */
  readonly at?: string;
  readonly reason?: string;
}

export type RollbackOffer =
  | { readonly kind: 'offered'; readonly renderRef: string; readonly revision: string }
  | { readonly kind: 'disabled'; readonly reason: string };

export type UnpinOffer =
  | { readonly kind: 'hidden' }
  | { readonly kind: 'offered'; readonly warning?: UnpinWarning };

const short = (ref: string) => ref.replace(/^sha256:/, '').slice(0, 12);

export function rollbackOffer(r: Release): RollbackOffer {
  const s = r.status;
  const lh = s?.lastHealthy;
  if (lh === undefined) {
    return {
      kind: 'disabled',
      reason: 'no render of this Release has been healthy yet: there is nothing to roll back to',
    };
  }
  const target = `render ${short(lh.renderRef)} (revision ${shortRevision(lh.revision)})`;
  if (r.spec.pin?.renderRef === lh.renderRef) {
    return { kind: 'disabled', reason: `already pinned to the last healthy ${target}` };
  }
  const ro = s?.rollout;
  const rollingOut = ro?.state === 'Progressing' && ro.renderRef !== lh.renderRef;
  if (!rollingOut && s?.lastSuccessful?.renderRef === lh.renderRef) {
    const back = ro?.state === 'RolledBack' ? ' (convoy already rolled back to it)' : '';
    return {
      kind: 'disabled',
      reason: `the running ${target} is the last healthy one${back}: a rollback would only pin it`,
    };
  }
  return { kind: 'offered', renderRef: lh.renderRef, revision: lh.revision };
}

/**
 * Under a pin, status.currentRender is the pinned render and status.rollout keeps the last rollout
 * of the source's render: when that one rolled back, unpinning applies the source's render again.
 */
export function unpinOffer(r: Release): UnpinOffer {
  const pin = r.spec.pin?.renderRef;
  if (pin === undefined) return { kind: 'hidden' };
  const s = r.status;
  const ro = s?.rollout;
  if (ro?.state === 'RolledBack' && ro.renderRef !== pin) {
    const revision = ro.revision ?? s?.history?.findLast((h) => h.renderRef === ro.renderRef)?.revision;
    return {
      kind: 'offered',
      warning: {
        renderRef: ro.renderRef,
        ...(revision === undefined ? {} : { revision: shortRevision(revision) }),
        ...(ro.finishedAt === undefined ? {} : { at: ro.finishedAt }),
        ...(ro.reason === undefined ? {} : { reason: ro.reason }),
      },
    };
  }
  return { kind: 'offered' };
}
