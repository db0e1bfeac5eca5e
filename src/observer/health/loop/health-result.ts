// HealthResult, the body of GET …/releases/{name}/health (DESIGN 5): built from the ReleaseInventory and
// the Release status only — it never runs an assessment.
import type { Condition, HookState, Release, ReleaseInventory } from '../../../api/types.ts';
import { type HealthSummary, healthSummary } from '../condition.ts';
import type { HealthState } from '../types.ts';

export interface HealthResultEntry {
  readonly group: string;
  readonly version?: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly wave: number;
  readonly renderRef?: string;
  /** Absent: not assessed yet. */
  readonly state?: HealthState;
  readonly message?: string;
  readonly firstUnhealthy?: string;
  readonly assessedRenderRef?: string;
  /** The state was assessed for the render the controller last applied to this object. */
  readonly current: boolean;
}

export interface HealthResultHook {
  readonly name: string;
  readonly phase?: string;
  readonly workloadName?: string;
  readonly state?: HookState;
  readonly reason?: string;
  readonly message?: string;
  readonly createdAt?: string;
  readonly finishedAt?: string;
}

export interface HealthResult {
  readonly namespace: string;
  readonly name: string;
  /** status.lastAttempted.renderRef */
  readonly renderRef?: string;
  readonly condition?: Condition;
  readonly summary: HealthSummary;
  readonly entries: readonly HealthResultEntry[];
  readonly hooks: readonly HealthResultHook[];
}

export function healthResult(inventory: ReleaseInventory | undefined, release: Release): HealthResult {
  const entries = (inventory?.entries ?? []).map(
    (e): HealthResultEntry => ({
      group: e.group,
      ...(e.version !== undefined ? { version: e.version } : {}),
      kind: e.kind,
      namespace: e.namespace,
      name: e.name,
      wave: e.wave ?? 0,
      ...(e.renderRef !== undefined ? { renderRef: e.renderRef } : {}),
      ...(e.state !== undefined ? { state: e.state } : {}),
      ...(e.message !== undefined && e.message !== '' ? { message: e.message } : {}),
      ...(e.firstUnhealthy !== undefined ? { firstUnhealthy: e.firstUnhealthy } : {}),
      ...(e.assessedRenderRef !== undefined ? { assessedRenderRef: e.assessedRenderRef } : {}),
      current: e.renderRef !== undefined && e.assessedRenderRef === e.renderRef,
    }),
  );
  const hooks = (inventory?.hooks ?? []).map(
    (h): HealthResultHook => ({
      name: h.name,
      ...(h.phase !== undefined ? { phase: h.phase } : {}),
      ...(h.workloadName !== undefined ? { workloadName: h.workloadName } : {}),
      ...(h.state !== undefined ? { state: h.state } : {}),
      ...(h.reason !== undefined ? { reason: h.reason } : {}),
      ...(h.message !== undefined ? { message: h.message } : {}),
      ...(h.createdAt !== undefined ? { createdAt: h.createdAt } : {}),
      ...(h.finishedAt !== undefined ? { finishedAt: h.finishedAt } : {}),
    }),
  );
  const renderRef = release.status?.lastAttempted?.renderRef;
  const condition = release.status?.conditions?.find((c) => c.type === 'Healthy');
  return {
    namespace: release.metadata.namespace ?? '',
    name: release.metadata.name ?? '',
    ...(renderRef !== undefined ? { renderRef } : {}),
    ...(condition !== undefined ? { condition } : {}),
    summary: healthSummary(entries.filter((e) => e.renderRef !== undefined)),
    entries,
    hooks,
  };
}
