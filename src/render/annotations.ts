// convoy's annotations on objects of a render (docs/design.md#waves, docs/design.md#prune,
// docs/design.md#hooks): sync-wave, prune and the hook set. Checked when a render is made, so later steps can
// read them without failing.
import {
  ANNOTATION_HOOK,
  ANNOTATION_HOOK_DELETE_POLICY,
  ANNOTATION_HOOK_TIMEOUT,
  ANNOTATION_HOOK_WEIGHT,
  ANNOTATION_PRUNE,
  ANNOTATION_SYNC_WAVE,
  HOOK_PHASES,
  type HookPhase,
  PRUNE_DISABLED,
} from '../api/constants.ts';
import { parseDuration } from '../api/duration.ts';
import { parseWave } from './keys.ts';
import type { ObjectKey } from './types.ts';

export const HOOK_DELETE_POLICIES = ['BeforeHookCreation', 'HookSucceeded', 'HookFailed'] as const;
export type HookDeletePolicy = (typeof HOOK_DELETE_POLICIES)[number];

export type HookSpec = {
  readonly phase: HookPhase;
  /** Milliseconds; undefined: the hook runner's default. */
  readonly timeoutMs: number | undefined;
  readonly deletePolicies: readonly HookDeletePolicy[];
  /** convoy.kumodo.io/hook-weight (Helm's helm.sh/hook-weight); 0 when absent. */
  readonly weight: number;
};

/** Hooks run a workload to completion, so only the two kinds that complete may be hooks. */
function canBeHook(key: ObjectKey): boolean {
  return (key.group === 'batch' && key.kind === 'Job') || (key.group === '' && key.kind === 'Pod');
}

function isOneOf<T extends string>(values: readonly T[], v: string): v is T {
  return (values as readonly string[]).includes(v);
}

/** What is wrong with the convoy annotations of one object; empty when nothing is. */
export function checkAnnotations(key: ObjectKey, annotations: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const wave = annotations[ANNOTATION_SYNC_WAVE];
  if (wave !== undefined && parseWave(wave) === undefined) {
    problems.push(
      `${ANNOTATION_SYNC_WAVE} must be an integer such as "1" or "-2", not ${JSON.stringify(wave)}`,
    );
  }
  const prune = annotations[ANNOTATION_PRUNE];
  if (prune !== undefined && prune !== PRUNE_DISABLED) {
    problems.push(`${ANNOTATION_PRUNE} may only be "${PRUNE_DISABLED}", not ${JSON.stringify(prune)}`);
  }
  const phase = annotations[ANNOTATION_HOOK];
  const timeout = annotations[ANNOTATION_HOOK_TIMEOUT];
  const policy = annotations[ANNOTATION_HOOK_DELETE_POLICY];
  const weight = annotations[ANNOTATION_HOOK_WEIGHT];
  if (phase === undefined) {
    for (const [name, value] of [
      [ANNOTATION_HOOK_TIMEOUT, timeout],
      [ANNOTATION_HOOK_DELETE_POLICY, policy],
      [ANNOTATION_HOOK_WEIGHT, weight],
    ] as const) {
      if (value !== undefined) problems.push(`${name} is set but ${ANNOTATION_HOOK} is not`);
    }
    return problems;
  }
  if (!isOneOf(HOOK_PHASES, phase)) {
    problems.push(
      `${ANNOTATION_HOOK} must be one of ${HOOK_PHASES.join(', ')}, not ${JSON.stringify(phase)}`,
    );
  }
  if (!canBeHook(key)) {
    problems.push(`${ANNOTATION_HOOK} is only allowed on a Job (batch) or a Pod, not on a ${key.kind}`);
  }
  if (timeout !== undefined && timeoutMs(timeout) === undefined) {
    problems.push(
      `${ANNOTATION_HOOK_TIMEOUT} must be a positive duration such as "5m" or "1h30m", not ${JSON.stringify(timeout)}`,
    );
  }
  if (weight !== undefined && hookWeight(weight) === undefined) {
    problems.push(
      `${ANNOTATION_HOOK_WEIGHT} must be an integer such as "-5" or "10", not ${JSON.stringify(weight)}`,
    );
  }
  if (policy !== undefined) {
    const bad = splitPolicies(policy).filter((p) => !isOneOf(HOOK_DELETE_POLICIES, p));
    if (bad.length > 0 || splitPolicies(policy).length === 0) {
      problems.push(
        `${ANNOTATION_HOOK_DELETE_POLICY} must be a comma-separated list of ${HOOK_DELETE_POLICIES.join(', ')}, not ${JSON.stringify(policy)}`,
      );
    }
  }
  return problems;
}

function timeoutMs(value: string): number | undefined {
  try {
    const ms = parseDuration(value);
    return ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

function splitPolicies(value: string): string[] {
  return value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** The hook an object declares, or undefined for an ordinary object. Expects checked annotations. */
export function hookOf(annotations: Readonly<Record<string, string>> | undefined): HookSpec | undefined {
  const phase = annotations?.[ANNOTATION_HOOK];
  if (annotations === undefined || phase === undefined || !isOneOf(HOOK_PHASES, phase)) return undefined;
  const timeout = annotations[ANNOTATION_HOOK_TIMEOUT];
  const policy = annotations[ANNOTATION_HOOK_DELETE_POLICY];
  return {
    phase,
    timeoutMs: timeout === undefined ? undefined : timeoutMs(timeout),
    deletePolicies:
      policy === undefined ? [] : splitPolicies(policy).filter((p) => isOneOf(HOOK_DELETE_POLICIES, p)),
    weight: hookWeight(annotations[ANNOTATION_HOOK_WEIGHT] ?? '0') ?? 0,
  };
}

/** A hook weight as Helm writes it: a (possibly signed) integer in a string. */
export function hookWeight(value: string): number | undefined {
  const v = value.trim();
  if (!/^[-+]?\d{1,9}$/.test(v)) return undefined;
  return Number(v);
}

/** Helm's keep: an object so annotated outlives `helm uninstall`, and convoy's prune and deletion too. */
export const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';

/**
 * Why a live object must never be deleted by prune or deletion (docs/design.md#prune): convoy's
 * `prune: disabled`, or Helm's `helm.sh/resource-policy: keep`, as it reads on the object. Undefined: no keep.
 */
export function keptBy(annotations: Readonly<Record<string, string>> | undefined): string | undefined {
  if (annotations?.[ANNOTATION_PRUNE] === PRUNE_DISABLED) return `${ANNOTATION_PRUNE}: ${PRUNE_DISABLED}`;
  if (annotations?.[HELM_RESOURCE_POLICY]?.trim() === 'keep') return `${HELM_RESOURCE_POLICY}: keep`;
  return undefined;
}
