// A render's recorded trigger in words (docs/design.md#history-and-triggers): one wording for the API's
// history view, `convoy history` and the UI's timeline, read only from what the controller recorded with
// the render — never from the Release's current annotations, so a later action cannot relabel it. Pure.
import { parseRequester } from '../api/requester.ts';
import { shortRevision } from '../api/revision.ts';
import type { AttemptTrigger } from '../api/types.ts';
import { assertNever } from '../lib/assert-never.ts';
import { describeRequester } from './sync.ts';

/** An entry written before convoy recorded triggers: what caused it is not known, and is not guessed. */
export const UNKNOWN_TRIGGER = 'unknown (recorded before convoy kept what triggered a render)';

const by = (value: string | undefined): string => {
  const r = parseRequester(value);
  return r === undefined ? ' (the requester was not recorded)' : ` by ${describeRequester(r)}`;
};

/** "sync requested by alice", "new source revision 1a2b3c4d5e6f", …; UNKNOWN_TRIGGER without one. */
export function triggerWords(t: AttemptTrigger | undefined, revision: string): string {
  if (t === undefined) return UNKNOWN_TRIGGER;
  switch (t.kind) {
    case 'Created':
      return `first render (revision ${shortRevision(revision)})`;
    case 'Source':
      return `new source revision ${shortRevision(revision)}`;
    case 'Spec':
      return `spec changed (generation ${t.generation ?? '?'}, same revision)`;
    case 'SyncRequest':
      return `sync requested${by(t.by)}`;
    case 'ForcedSync':
      return `forced sync requested${by(t.by)}`;
    case 'Approval':
      return `approved${by(t.by)}`;
    case 'Pin':
      return 'pinned by a user (spec.pin: convoy pin or rollback, or the UI)';
    case 'Rollback':
      return `automatic rollback (failurePolicy)${t.reason ? ` after ${t.reason}` : ''}, to the last healthy revision ${shortRevision(revision)}`;
    case 'Resync':
      return "the controller's own resync (same revision and spec: the interval, or a retry after an error)";
    default:
      return assertNever(t.kind);
  }
}
