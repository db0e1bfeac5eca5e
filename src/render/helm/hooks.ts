// Helm's chart hooks as convoy's: a Job or Pod annotated helm.sh/hook becomes a convoy hook of the
// matching phase, its helm.sh/hook-delete-policy mapped too. Test hooks are left out (convoy runs no
// `helm test`), and so are rollback hooks (a convoy rollback re-applies a render, it runs no hooks).
// Another kind under an install/upgrade hook is applied as an ordinary object of the render; under a
// delete hook it is left out (Helm would create it only while deleting). Pure.
import { ANNOTATION_HOOK, ANNOTATION_HOOK_DELETE_POLICY, type HookPhase } from '../../api/constants.ts';

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

const DELETE_POLICIES: Readonly<Record<string, string>> = {
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
  const policies = list(annotations['helm.sh/hook-delete-policy'])
    .map((p) => DELETE_POLICIES[p])
    .filter((p): p is string => p !== undefined);
  const md = o.metadata as Record<string, unknown>;
  return {
    ...o,
    metadata: {
      ...md,
      annotations: {
        ...annotations,
        [ANNOTATION_HOOK]: phase,
        ...(policies.length === 0 ? {} : { [ANNOTATION_HOOK_DELETE_POLICY]: policies.join(',') }),
      },
    },
  };
}
