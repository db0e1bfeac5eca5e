// Helm's chart hooks as convoy's: a Job or Pod annotated helm.sh/hook becomes a convoy hook of the
// matching phase, its helm.sh/hook-delete-policy and helm.sh/hook-weight mapped too. Test hooks are left
// out (convoy runs no `helm test`), and so are rollback hooks (a convoy rollback re-applies a render, it
// runs no hooks). Another kind under an install/upgrade hook stays an object of the render, applied
// before the workloads of its phase: a pre-install ServiceAccount, Role or RoleBinding before the PreSync
// Job that runs under it; its helm.sh/hook-delete-policy says when it goes again (helmHookResource;
// docs/design.md#hooks). Under a delete hook it is left out (Helm would create it only while deleting).
// Pure.
import {
  ANNOTATION_HOOK,
  ANNOTATION_HOOK_DELETE_POLICY,
  ANNOTATION_HOOK_WEIGHT,
  type HookPhase,
} from '../../api/constants.ts';
import { type HookDeletePolicy, hookWeight } from '../annotations.ts';

const PHASES: Readonly<Record<string, HookPhase | 'drop' | undefined>> = {
  'pre-install': 'PreSync',
  'pre-upgrade': 'PreSync',
  'post-install': 'PostSync',
  'post-upgrade': 'PostSync',
  'pre-delete': 'PreDelete',
  'post-delete': 'PostDelete',
  'pre-rollback': undefined,
  'post-rollback': undefined,
  test: 'drop',
  'test-success': 'drop',
};

/** In this order the first phase a hook names wins (convoy runs a hook in one phase). */
const ORDER: readonly HookPhase[] = ['PreSync', 'PostSync', 'PreDelete', 'PostDelete'];

const DELETE_POLICIES: Readonly<Record<string, HookDeletePolicy>> = {
  'before-hook-creation': 'BeforeHookCreation',
  'hook-succeeded': 'HookSucceeded',
  'hook-failed': 'HookFailed',
};

type Obj = Readonly<Record<string, unknown>>;

function annotationsOf(o: Obj): Readonly<Record<string, unknown>> {
  const md = o.metadata as { annotations?: Record<string, unknown> } | undefined;
  return md?.annotations ?? {};
}

const list = (v: unknown): string[] =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : [];

/** The object as convoy should see it, or undefined when it is left out of the render. */
export function mapHelmHook(o: Obj): Obj | undefined {
  const annotations = annotationsOf(o);
  const names = list(annotations['helm.sh/hook']);
  if (names.length === 0) return o;
  const mapped = names.map((n) => PHASES[n]);
  if (mapped.includes('drop')) return undefined;
  const phase = ORDER.find((p) => mapped.includes(p));
  if (phase === undefined) return undefined; // only rollback hooks
  const workload =
    (o.kind === 'Job' && o.apiVersion === 'batch/v1') || (o.kind === 'Pod' && o.apiVersion === 'v1');
  if (!workload) return phase === 'PreSync' || phase === 'PostSync' ? o : undefined;
  const policies = deletePolicies(annotations);
  const md = o.metadata as Record<string, unknown>;
  const weight = annotations['helm.sh/hook-weight'];
  const weighted = typeof weight === 'string' && hookWeight(weight) !== undefined;
  return {
    ...o,
    metadata: {
      ...md,
      annotations: {
        ...annotations,
        [ANNOTATION_HOOK]: phase,
        ...(policies.length === 0 ? {} : { [ANNOTATION_HOOK_DELETE_POLICY]: policies.join(',') }),
        ...(weighted ? { [ANNOTATION_HOOK_WEIGHT]: String(hookWeight(weight)) } : {}),
      },
    },
  };
}

/** helm.sh/hook-delete-policy as convoy's policies; unknown values are left out (Helm ignores them too). */
function deletePolicies(annotations: Readonly<Record<string, unknown>>): HookDeletePolicy[] {
  return list(annotations['helm.sh/hook-delete-policy'])
    .map((p) => DELETE_POLICIES[p])
    .filter((p): p is HookDeletePolicy => p !== undefined);
}

/** A Helm hook resource that is not a workload, as the controller treats it (docs/design.md#hooks). */
export interface HelmHookResource {
  /**
   * PreSync for pre-install/pre-upgrade: live before the phase's Jobs and Pods that run under it. PostSync
   * for post-install/post-upgrade: its wave applies it, before PostSync anyway.
   */
  readonly phase: 'PreSync' | 'PostSync';
  /** Never empty: Helm's default is before-hook-creation. */
  readonly deletePolicies: readonly HookDeletePolicy[];
  /** helm.sh/hook-weight; 0 when absent or not an integer, as Helm reads it. */
  readonly weight: number;
}

/**
 * The hook phase and delete policies of a Helm hook resource that is not a workload (a ServiceAccount,
 * Role, ConfigMap… under helm.sh/hook); undefined for an ordinary object. Only install/upgrade hooks stay
 * in a render (mapHelmHook), and the first phase named wins, as for workloads.
 */
export function helmHookResource(
  annotations: Readonly<Record<string, unknown>> | undefined,
): HelmHookResource | undefined {
  const names = list(annotations?.['helm.sh/hook']).map((n) => PHASES[n]);
  const phase = names.includes('PreSync') ? 'PreSync' : names.includes('PostSync') ? 'PostSync' : undefined;
  if (phase === undefined || annotations === undefined) return undefined;
  const policies = deletePolicies(annotations);
  const weight = annotations['helm.sh/hook-weight'];
  return {
    phase,
    deletePolicies: policies.length === 0 ? ['BeforeHookCreation'] : policies,
    weight: (typeof weight === 'string' ? hookWeight(weight) : undefined) ?? 0,
  };
}
