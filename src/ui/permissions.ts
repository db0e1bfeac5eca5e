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
      const [resource, subresource] = p.resource.split('/');
      const review = await client.request<SelfSubjectAccessReview>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              namespace,
              verb: p.verb,
              group: p.group,
              resource,
              ...(subresource === undefined ? {} : { subresource }),
              name,
            },
          },
        },
      });
      const s = review.status;
      const reason = s?.reason || s?.evaluationError;
      answers.set(key, {
        ...p,
        namespace,
        allowed: s?.allowed === true && s.denied !== true,
        ...(reason ? { reason } : {}),
      });
    }),
  );
  const actions = Object.fromEntries(
    (Object.keys(PERMISSIONS) as ActionKind[]).map((k) => [k, answers.get(keyOf(PERMISSIONS[k]))]),
  ) as Record<ActionKind, PermissionCheck>;
  return { actions };
}
