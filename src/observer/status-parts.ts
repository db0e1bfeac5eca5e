// The two parts of a Release's status the observer writes, one per loop (docs/design.md#observer-status):
// which condition and summary each holds, the part a stored status holds, the body of one write, and when
// a posted part waits for the other loop. Pure; ./status-writer.ts does the writing.
import type { ReleaseStatus } from '../api/types.ts';
import type { LoopStatusBody } from './status-condition.ts';

/** Each loop's condition type and the summary field written beside it. */
export const STATUS_PARTS = {
  health: { type: 'Healthy', summary: 'healthSummary' },
  drift: { type: 'Drifted', summary: 'driftSummary' },
} as const;
export type StatusPart = keyof typeof STATUS_PARTS;
/** What a loop posts: its one condition and its summary. */
export type PartBody<P extends StatusPart> = LoopStatusBody<(typeof STATUS_PARTS)[P]['summary']>;
export type Parts = { -readonly [P in StatusPart]?: PartBody<P> };
const PARTS = Object.keys(STATUS_PARTS) as StatusPart[];

/** The part a stored status holds (its condition and summary), to send again beside the other one. */
export function storedPart<P extends StatusPart>(
  status: ReleaseStatus | undefined,
  part: P,
): PartBody<P> | undefined {
  const { type, summary: field } = STATUS_PARTS[part];
  const condition = status?.conditions?.find((c) => c.type === type);
  const summary = status?.[field];
  if (condition === undefined || summary === undefined) return undefined;
  return { conditions: [condition], [field]: summary } as unknown as PartBody<P>;
}

/** Every part a stored status holds. */
export function storedParts(status: ReleaseStatus | undefined): Parts {
  const parts: Record<string, unknown> = {};
  for (const p of PARTS) {
    const stored = storedPart(status, p);
    if (stored !== undefined) parts[p] = stored;
  }
  return parts as Parts;
}

/** The status body of one write: the parts there are, in STATUS_PARTS order. */
export function mergeParts(parts: Parts): Record<string, unknown> {
  const conditions: unknown[] = [];
  const summaries: Record<string, unknown> = {};
  for (const p of PARTS) {
    const body = parts[p] as (Record<string, unknown> & { conditions: readonly unknown[] }) | undefined;
    if (body === undefined) continue;
    conditions.push(...body.conditions);
    summaries[STATUS_PARTS[p].summary] = body[STATUS_PARTS[p].summary];
  }
  return { conditions, ...summaries };
}

/** One other loop as a waiting part sees it. */
export interface OtherLoop {
  /** It has a pass of the Release queued or running. */
  readonly due: boolean;
  /** It posted its part since the write's first part. */
  readonly posted: boolean;
  /** A pass of it ended since the write's first part (and it was not queued again). */
  readonly ended: boolean;
}

/** A posted part waits while some other loop has a pass due that has neither posted nor ended. */
export function mustWait(others: readonly OtherLoop[]): boolean {
  return others.some((o) => o.due && !o.posted && !o.ended);
}
