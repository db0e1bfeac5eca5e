// healthSummary: status.healthSummary counted from inventory entries. The observer writes it with the
// Healthy condition; the HTTP API's health view counts the same way from the inventory it reads, so both
// live here, below both processes.
import { assertNever } from '../lib/assert-never.ts';
import type { EntryState, HealthSummary } from './types.ts';

export type { HealthSummary };

export const emptySummary: HealthSummary = { healthy: 0, progressing: 0, degraded: 0, unknown: 0, total: 0 };

/** Entries without a state yet count as unknown. */
export function healthSummary(
  entries: readonly { readonly state?: EntryState | undefined }[],
): HealthSummary {
  let healthy = 0;
  let progressing = 0;
  let degraded = 0;
  let unknown = 0;
  for (const e of entries) {
    const s = e.state;
    switch (s) {
      case 'Healthy':
        healthy++;
        break;
      case 'Progressing':
        progressing++;
        break;
      case 'Degraded':
        degraded++;
        break;
      case 'Unknown':
      case undefined:
        unknown++;
        break;
      default:
        assertNever(s);
    }
  }
  return { healthy, progressing, degraded, unknown, total: entries.length };
}
