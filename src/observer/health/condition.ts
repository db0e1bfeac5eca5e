// The Release's Healthy condition and healthSummary (docs/design.md#healthy-condition), from the entries this
// pass wrote.
import { emptySummary, type HealthSummary, healthSummary } from '../../api/health-summary.ts';
import type { HealthyReason, InventoryEntry } from '../../api/types.ts';
import { assertNever } from '../../lib/assert-never.ts';
import type { LoopCondition } from '../status-condition.ts';

export type HealthyCondition = LoopCondition<HealthyReason, HealthSummary>;

export type AssessOutcome =
  | { readonly kind: 'notConfigured' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'assessed'; readonly entries: readonly InventoryEntry[] };

export interface ConditionInput {
  readonly outcome: AssessOutcome;
  /** status.lastAttempted.renderRef; undefined before the first attempt. */
  readonly lastAttemptedRenderRef: string | undefined;
  /** Kept when the assessment failed. */
  readonly previousSummary: HealthSummary | undefined;
}

const describe = (e: InventoryEntry) =>
  `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}${e.message ? `: ${e.message}` : ''}`;

/** The first matching row of docs/design.md#healthy-condition decides. */
export function healthyCondition(input: ConditionInput): HealthyCondition {
  const o = input.outcome;
  switch (o.kind) {
    case 'notConfigured':
      return {
        status: 'True',
        reason: 'NotConfigured',
        message: 'no healthAssessment',
        summary: emptySummary,
      };
    case 'failed':
      return {
        status: 'Unknown',
        reason: 'Unknown',
        message: o.message,
        summary: input.previousSummary ?? emptySummary,
      };
    case 'assessed':
      return fromEntries(o.entries, input.lastAttemptedRenderRef, input.previousSummary);
    default:
      return assertNever(o);
  }
}

function fromEntries(
  entries: readonly InventoryEntry[],
  lastAttempted: string | undefined,
  previousSummary: HealthSummary | undefined,
): HealthyCondition {
  const summary = healthSummary(entries);
  // Before the first attempt nothing convoy applied can be healthy: "0 objects healthy" made a Release
  // whose every dry run failed look fine in kubectl get. The summary written with the first Pending is
  // kept until the attempt lands: the entries recorded meanwhile would cost a status write per new
  // Release that the attempt's own Healthy write follows at once (docs/design.md#healthy-condition).
  if (lastAttempted === undefined) {
    return {
      status: 'Unknown',
      reason: 'Pending',
      message: 'no render applied yet',
      summary: previousSummary ?? summary,
    };
  }
  if (entries.length === 0) {
    return {
      status: 'Unknown',
      reason: 'Pending',
      message: 'no object of the render is recorded yet',
      summary,
    };
  }
  const stale = entries.filter((e) => e.renderRef !== lastAttempted);
  if (stale.length > 0) {
    return {
      status: 'Unknown',
      reason: 'Pending',
      message: `${stale.length} of ${entries.length} objects not yet applied for render ${lastAttempted ?? '(none)'}`,
      summary,
    };
  }
  const degraded = entries.filter((e) => e.state === 'Degraded');
  if (degraded.length > 0) {
    return { status: 'False', reason: 'Degraded', message: countMessage(degraded, 'degraded'), summary };
  }
  const waiting = entries.filter((e) => e.state !== 'Healthy');
  if (waiting.length > 0) {
    return {
      status: 'Unknown',
      reason: 'Progressing',
      message: countMessage(waiting, 'not healthy yet'),
      summary,
    };
  }
  return { status: 'True', reason: 'Healthy', message: `${entries.length} objects healthy`, summary };
}

function countMessage(es: readonly InventoryEntry[], what: string): string {
  const first = es[0] as InventoryEntry;
  const more = es.length > 1 ? ` (and ${es.length - 1} more)` : '';
  return `${es.length} ${es.length === 1 ? 'object' : 'objects'} ${what}: ${describe(first)}${more}`;
}
