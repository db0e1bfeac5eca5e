// Builders shared by the hook tests: render hook objects, Helm hook resources and inventory hook entries.
import type { HookPhase } from '../../../../api/constants.ts';
import type { InventoryHook } from '../../../../api/types.ts';
import type { Obj } from '../../../../render/types.ts';
import { hookWorkloadName } from './defs.ts';

export const R1 = `sha256:${'a1'.repeat(32)}`;
export const R2 = `sha256:${'b2'.repeat(32)}`;
export const NOW = Date.parse('2025-06-01T12:00:00Z');

export function hookObj(
  name: string,
  phase: HookPhase,
  opts: { kind?: 'Job' | 'Pod'; namespace?: string; timeout?: string; policy?: string; weight?: string } = {},
): Obj {
  const kind = opts.kind ?? 'Job';
  const annotations: Record<string, string> = { 'convoy.kumodo.io/hook': phase };
  if (opts.timeout !== undefined) annotations['convoy.kumodo.io/hook-timeout'] = opts.timeout;
  if (opts.policy !== undefined) annotations['convoy.kumodo.io/hook-delete-policy'] = opts.policy;
  if (opts.weight !== undefined) annotations['convoy.kumodo.io/hook-weight'] = opts.weight;
  return {
    apiVersion: kind === 'Job' ? 'batch/v1' : 'v1',
    kind,
    metadata: { name, namespace: opts.namespace ?? 'app', annotations },
    spec: {},
  };
}

/** An entry as the controller records it, plus the observer's fields given in `status`. */
export function entry(
  name: string,
  phase: HookPhase,
  renderRef: string,
  createdAt: string,
  status: Partial<Pick<InventoryHook, 'state' | 'reason' | 'message' | 'finishedAt'>> = {},
  kind: 'Job' | 'Pod' = 'Job',
): InventoryHook {
  return {
    name,
    phase,
    kind,
    renderRef,
    workloadName: hookWorkloadName(name, renderRef),
    createdAt,
    timeout: '5m',
    ...status,
  };
}

/** A Helm hook resource as the render keeps it (not a workload): its helm.sh annotations untouched. */
export function helmResource(kind: string, name: string, hook: string, policy?: string): Obj {
  const annotations: Record<string, string> = { 'helm.sh/hook': hook };
  if (policy !== undefined) annotations['helm.sh/hook-delete-policy'] = policy;
  return { apiVersion: 'v1', kind, metadata: { name, namespace: 'app', annotations } };
}
