// What the page shows of one live object of a Release's tree: its manifest as YAML without the
// managedFields (pages of field owners nobody reads there) and with Secret values masked, and its
// Kubernetes Events, newest first. Pure.
import { stringify } from 'yaml';
import { type KubeEvent, lastSeen } from '../kube/events.ts';
import { maskSecret } from '../render/secret-mask.ts';

export interface EventView {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** The newest time it happened (lastSeen: series, lastTimestamp, eventTime, then creation). */
  readonly time: string;
}

export type { KubeEvent };

export interface LiveObjectView {
  readonly yaml: string;
  readonly events: readonly EventView[];
}

type Obj = { readonly metadata?: Readonly<Record<string, unknown>> } & Readonly<Record<string, unknown>>;

export function liveObjectView(obj: Obj, events: readonly KubeEvent[]): LiveObjectView {
  const { managedFields: _folded, ...metadata } = obj.metadata ?? {};
  const shown = maskSecret({ ...obj, metadata });
  return {
    yaml: stringify(shown, { lineWidth: 0 }),
    events: events
      .map((e) => ({
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.count ?? 1,
        time: lastSeen(e),
      }))
      .sort((a, b) => b.time.localeCompare(a.time)),
  };
}
