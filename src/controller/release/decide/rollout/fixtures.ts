// Builders shared by the rollout table tests: render refs, inventory entries and hook entries with
// just the fields a row needs.
import type { HookEntry, HookPhase, InventoryEntry, ObjectRef } from './types.ts';

export { R1, R2, R3 } from '../../../../api/testsupport.ts';

export const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
export const MIN = 60_000;

export function obj(name: string, kind = 'Deployment', namespace = 'web', group = 'apps'): ObjectRef {
  return { group, kind, namespace, name };
}

/** An entry recorded and assessed for `renderRef` in `state`. */
export function entry(
  o: ObjectRef,
  renderRef: string,
  state: InventoryEntry['state'],
  wave = 0,
): InventoryEntry {
  return { ...o, version: 'v1', wave, renderRef, state, assessedRenderRef: renderRef };
}

export function hook(
  name: string,
  phase: HookPhase,
  renderRef: string,
  state: HookEntry['state'],
  times: { createdAt?: string; finishedAt?: string } = {
    createdAt: '2025-06-01T12:00:00Z',
    finishedAt: '2025-06-01T12:01:00Z',
  },
): HookEntry {
  return { name, phase, kind: 'Job', renderRef, workloadName: `${name}-x`, state, ...times };
}
