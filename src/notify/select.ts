// Which facts of a Release an Alert sends: the Release is selected (names, labels), the event is one it
// forwards at or above its minimum severity, and the fact is not the one last planned for that class.
// A fact older than the Alert itself is taken as known (recorded, not sent), so creating an Alert does
// not replay the current state of every Release it selects. Pure.
import type { Alert, Release } from '../api/types.ts';
import { selectionMatches } from '../lib/selector.ts';
import { atLeast, type Fact, type FactClass } from './facts.ts';

/** Whether the Alert's spec.releases selects the Release (same namespace assumed). */
export function alertSelects(alert: Pick<Alert, 'spec'>, release: Pick<Release, 'metadata'>): boolean {
  return selectionMatches(alert.spec.releases, release.metadata.name, release.metadata.labels);
}

/** Whether the Alert forwards this kind of fact at all (events and minimum severity). */
export function alertWants(alert: Pick<Alert, 'spec'>, fact: Pick<Fact, 'event' | 'severity'>): boolean {
  const events = alert.spec.events;
  if (events !== undefined && events.length > 0 && !events.includes(fact.event)) return false;
  return atLeast(fact.severity, alert.spec.severity ?? 'info');
}

export type Verdict =
  /** Send it. */
  | 'send'
  /** Record it as known without sending (it happened before the Alert existed). */
  | 'baseline'
  /** Nothing to do: already planned or sent, or not wanted. */
  | 'skip';

export interface PlanInput {
  readonly alert: Pick<Alert, 'spec' | 'metadata'>;
  readonly release: Pick<Release, 'metadata'>;
  /** Facts in the order they were observed; later facts of a class supersede earlier ones. */
  readonly facts: readonly Fact[];
  /** The key last planned (or delivered) for a class of this (Alert, Release). */
  readonly lastPlanned: (cls: FactClass) => string | undefined;
}

export interface Planned {
  readonly fact: Fact;
  readonly verdict: Exclude<Verdict, 'skip'>;
}

/**
 * What to do with each fact, in order. A fact whose key equals the last planned one of its class is a
 * duplicate; one the Alert does not want is skipped but still counts as the class's latest state (so the
 * Alert learning a new event list later does not replay it). Pure.
 */
export function planFacts(input: PlanInput): Planned[] {
  const { alert, release } = input;
  if (alert.spec.suspend === true || !alertSelects(alert, release)) return [];
  const created = Date.parse(alert.metadata.creationTimestamp ?? '');
  const last = new Map<FactClass, string | undefined>();
  const out: Planned[] = [];
  for (const fact of input.facts) {
    const prev = last.has(fact.class) ? last.get(fact.class) : input.lastPlanned(fact.class);
    if (prev === fact.key) continue;
    last.set(fact.class, fact.key);
    const at = fact.at === undefined ? Number.NaN : Date.parse(fact.at);
    const old = !Number.isNaN(created) && !Number.isNaN(at) && at < created;
    if (old || !alertWants(alert, fact)) out.push({ fact, verdict: 'baseline' });
    else out.push({ fact, verdict: 'send' });
  }
  return out;
}
