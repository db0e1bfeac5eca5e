// The permission pre-check of a Release page: before it offers an action, the page asks which of the
// permissions the actions need (actions.ts PERMISSIONS) the user holds, by SelfSubjectAccessReview with
// the user's own client — so `convoy ui` and the in-cluster UI (impersonating the user) get the same
// answers the API server will give the write itself. The click's own 403 stays the final word.
import type { KubeClient } from '../kube/client.ts';
import { type ActionKind, PERMISSIONS, type Permission } from './actions.ts';

export interface PermissionCheck extends Permission {
  readonly namespace: string;
  readonly allowed: boolean;
  /** The authorizer's reason, when it gave one. */
  readonly reason?: string;
}

export interface Permissions {
  /** Per action: the permission it needs and whether the user has it. */
  readonly actions: Readonly<Record<ActionKind, PermissionCheck>>;
}

interface SelfSubjectAccessReview {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const keyOf = (p: Permission) => `${p.verb} ${p.group} ${p.resource}`;

/** One SelfSubjectAccessReview: whether the client's user may `verb` `resource` (with subresource) there. */
async function review(
  client: KubeClient,
  attributes: {
    readonly namespace: string;
    readonly verb: string;
    readonly group: string;
    readonly resource: string;
    readonly name?: string;
  },
): Promise<{ readonly allowed: boolean; readonly reason?: string }> {
  const [resource, subresource] = attributes.resource.split('/');
  const answer = await client.request<SelfSubjectAccessReview>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          ...attributes,
          resource,
          ...(subresource === undefined ? {} : { subresource }),
        },
      },
    },
  });
  const s = answer.status;
  const reason = s?.reason || s?.evaluationError;
  return { allowed: s?.allowed === true && s.denied !== true, ...(reason ? { reason } : {}) };
}

/**
 * Whether the user may list and watch `resource` in `namespace`: asked before a watch of something a user
 * may well not read (convoy's shard Leases), so the watch is not even tried — a refused request is noise
 * in the API server's audit and in convoy's own denial log.
 */
export async function mayWatch(
  client: KubeClient,
  group: string,
  resource: string,
  namespace: string,
): Promise<boolean> {
  const answers = await Promise.all(
    ['list', 'watch'].map((verb) => review(client, { namespace, verb, group, resource })),
  );
  return answers.every((a) => a.allowed);
}

/** One review per distinct permission (two today), in parallel. */
export async function permissionsFor(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<Permissions> {
  const distinct = new Map<string, Permission>();
  for (const p of Object.values(PERMISSIONS)) distinct.set(keyOf(p), p);
  const answers = new Map<string, PermissionCheck>();
  await Promise.all(
    [...distinct].map(async ([key, p]) => {
      const a = await review(client, { namespace, verb: p.verb, group: p.group, resource: p.resource, name });
      answers.set(key, { ...p, namespace, ...a });
    }),
  );
  const actions = Object.fromEntries(
    (Object.keys(PERMISSIONS) as ActionKind[]).map((k) => [k, answers.get(keyOf(PERMISSIONS[k]))]),
  ) as Record<ActionKind, PermissionCheck>;
  return { actions };
}
