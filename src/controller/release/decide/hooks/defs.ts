// A render's hook objects read once into HookDefs: phase, kind, namespace, timeout and delete policies
// with convoy's defaults applied, plus the names of hook workloads. The render has already checked the
// annotations (src/render/annotations.ts), so reading them here cannot fail.
import { createHash } from 'node:crypto';
import type { HookPhase } from '../../../../api/constants.ts';
import type { HookDeletePolicy } from '../../../../render/annotations.ts';
import { hookOf } from '../../../../render/annotations.ts';
import { groupOf } from '../../../../render/keys.ts';
import type { Obj } from '../../../../render/types.ts';

export type HookKind = 'Job' | 'Pod';

export interface HookDef {
  /** metadata.name in the render: the hook's key in ReleaseInventory.hooks. */
  readonly name: string;
  readonly phase: HookPhase;
  readonly kind: HookKind;
  /** As the render resolved it; undefined only when neither the object nor targetNamespace set one. */
  readonly namespace: string | undefined;
  readonly timeoutMs: number;
  /** Never empty: BeforeHookCreation when the annotation is absent. */
  readonly deletePolicies: readonly HookDeletePolicy[];
  /** Within a phase, hooks run by ascending weight: a weight starts once every lower one succeeded. */
  readonly weight: number;
  readonly object: Obj;
}

/**
 * A hook without convoy.kumodo.io/hook-timeout fails after this long. Without a default, a hung PreSync
 * hook would keep the verdict Pending forever, and a rollout could neither succeed nor fail.
 */
export const DEFAULT_HOOK_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_DELETE_POLICIES: readonly HookDeletePolicy[] = ['BeforeHookCreation'];

/** Jobs name their pods' job-name label after themselves, and label values stop at 63 characters. */
export const MAX_WORKLOAD_NAME = 63;
/** Hex characters of the renderRef in a workload name. */
export const SHORT_REF_LENGTH = 10;
const NAME_HASH_LENGTH = 8;

/** The hooks of a render (render.hooks), in the render's order. Non-hook objects are skipped. */
export function hookDefs(hooks: readonly Obj[]): HookDef[] {
  const defs: HookDef[] = [];
  for (const object of hooks) {
    const spec = hookOf(object.metadata.annotations);
    const kind = hookKind(object);
    if (spec === undefined || kind === undefined) continue;
    defs.push({
      name: object.metadata.name,
      phase: spec.phase,
      kind,
      namespace: object.metadata.namespace,
      timeoutMs: spec.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
      deletePolicies: spec.deletePolicies.length > 0 ? spec.deletePolicies : DEFAULT_DELETE_POLICIES,
      weight: spec.weight,
      object,
    });
  }
  return defs;
}

function hookKind(o: Obj): HookKind | undefined {
  const group = groupOf(o.apiVersion);
  if (group === 'batch' && o.kind === 'Job') return 'Job';
  if (group === '' && o.kind === 'Pod') return 'Pod';
  return undefined;
}

/**
 * Why the hooks cannot be keyed in the inventory: ReleaseInventory.hooks is a list-map keyed by name
 * alone, while a render may hold a Job and a Pod (or two Jobs in two namespaces) of the same name.
 * Empty when every hook name is unique.
 */
export function hookNameConflicts(hooks: readonly HookDef[]): string[] {
  const byName = new Map<string, HookDef[]>();
  for (const h of hooks) byName.set(h.name, [...(byName.get(h.name) ?? []), h]);
  const problems: string[] = [];
  for (const [name, same] of byName) {
    if (same.length < 2) continue;
    const where = same
      .map((h) => `${h.phase} ${h.kind} ${h.namespace ?? '(no namespace)'}/${name}`)
      .join(', ');
    problems.push(
      `hook name ${name} is used by ${same.length} hooks (${where}); hook names must be unique within a release`,
    );
  }
  return problems;
}

/** The renderRef's first hex characters: enough to tell renders apart in a name. */
export function shortRenderRef(renderRef: string): string {
  const hex = renderRef.startsWith('sha256:') ? renderRef.slice('sha256:'.length) : renderRef;
  return hex.slice(0, SHORT_REF_LENGTH).toLowerCase();
}

/**
 * `<name>-<short ref>`, at most 63 characters. A name too long for that keeps its first characters plus
 * a hash of the whole name, so two long names with a common beginning still get different workloads.
 */
export function hookWorkloadName(hookName: string, renderRef: string): string {
  const suffix = `-${shortRenderRef(renderRef)}`;
  const room = MAX_WORKLOAD_NAME - suffix.length;
  if (hookName.length <= room) return `${hookName}${suffix}`;
  const hash = createHash('sha256').update(hookName).digest('hex').slice(0, NAME_HASH_LENGTH);
  const head = hookName.slice(0, room - NAME_HASH_LENGTH - 1).replace(/[-.]+$/, '');
  return `${head}-${hash}${suffix}`;
}

/** A duration in the Go syntax the CRD's Duration fields accept ("5m", "1h30m", "1500ms"). */
export function formatGoDuration(ms: number): string {
  const whole = Math.ceil(ms);
  if (whole <= 0) return '0';
  if (whole % 1000 !== 0) return `${whole}ms`;
  let s = whole / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
}
