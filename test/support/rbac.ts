// RBAC set-up for e2e tests: a Role bound to its subjects in one namespace, a ServiceAccount that may
// only write ConfigMaps of its own namespace, a ServiceAccount's token, and waiting until the RBAC
// authorizer enforces a grant (it learns bindings through an informer, so a request made right after
// the create may still be denied, and a server's decision cache would keep that denial).
import type { KubeClient } from '../../src/kube/client.ts';
import { waitFor } from './wait.ts';

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

export type Subject =
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }
  | { readonly kind: 'User' | 'Group'; readonly name: string };

/** A Role `name` with `rules` in `ns`, and a RoleBinding of the same name binding it to `subjects`. */
export async function bindRole(
  client: KubeClient,
  ns: string,
  name: string,
  rules: readonly PolicyRule[],
  subjects: readonly Subject[],
): Promise<void> {
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace: ns },
    rules,
  } as never);
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: subjects.map((s) =>
      s.kind === 'ServiceAccount' ? s : { ...s, apiGroup: 'rbac.authorization.k8s.io' },
    ),
  } as never);
}

/** Every verb a writer of a resource needs (get, list, watch, create, update, patch, delete). */
export const READ_WRITE: readonly string[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Every convoy.kumodo.io resource the web UI shows. */
export const UI_RESOURCES: readonly string[] = ['releases', 'releaseinventories', 'clusters', 'releasesets'];

/**
 * What a web UI user's Role grants: read (get, list, watch) the convoy.kumodo.io resources `read`, and
 * the `api` rule on the aggregated API (api.convoy.kumodo.io).
 */
export type UiGrant = [read: readonly string[], api: Omit<PolicyRule, 'apiGroups'>];

/** A web UI user's Role `name` of `ns` with `grant`, bound to `subjects`. */
export function bindUiRole(
  client: KubeClient,
  ns: string,
  name: string,
  subjects: readonly Subject[],
  ...[read, api]: UiGrant
): Promise<void> {
  return bindRole(
    client,
    ns,
    name,
    [
      { apiGroups: ['convoy.kumodo.io'], resources: read, verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['api.convoy.kumodo.io'], ...api },
    ],
    subjects,
  );
}

/** bindUiRole as the Role ui-viewer of `ns`, bound to its ServiceAccount `sa`. */
export function bindViewer(client: KubeClient, ns: string, sa: string, ...grant: UiGrant): Promise<void> {
  return bindUiRole(client, ns, 'ui-viewer', [{ kind: 'ServiceAccount', name: sa, namespace: ns }], ...grant);
}

/** A ServiceAccount `sa` of `ns` that may do only `verbs` on the ConfigMaps of `ns` (Role configmap-writer). */
export async function configMapWriter(
  client: KubeClient,
  ns: string,
  sa: string,
  verbs: readonly string[],
): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns } });
  await bindRole(
    client,
    ns,
    'configmap-writer',
    [{ apiGroups: [''], resources: ['configmaps'], verbs }],
    [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  );
}

/** The spec of a SubjectAccessReview: who, and what on which resource. */
export interface AccessReview {
  readonly user: string;
  readonly groups?: readonly string[];
  readonly resourceAttributes: {
    readonly namespace?: string;
    readonly verb: string | undefined;
    readonly group: string;
    readonly resource: string | undefined;
    readonly subresource?: string | undefined;
    readonly name?: string;
  };
}

/** Whether the API server's authorizer allows `review` now (a SubjectAccessReview). */
export async function isAllowed(client: KubeClient, review: AccessReview): Promise<boolean> {
  const sar = await client.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: review },
  });
  return sar.status?.allowed === true;
}

/** Waits until the API server's authorizer allows `review` (`what` names it in a timeout). */
export async function waitForAccess(client: KubeClient, what: string, review: AccessReview): Promise<void> {
  await waitFor(what, () => isAllowed(client, review));
}

/** A token of the (existing) ServiceAccount `namespace/name` from the TokenRequest API. */
export async function serviceAccountToken(
  client: KubeClient,
  namespace: string,
  name: string,
  expirationSeconds = 3600,
): Promise<string> {
  const tr = await client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
  });
  return tr.status.token;
}
