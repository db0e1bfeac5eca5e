// Why an impersonated apply was refused, when the API server's answer misleads: a 403 for a
// spec.serviceAccountName that does not exist reads like missing RBAC, so the sync says the account is
// missing instead.
import type { Release } from '../../../api/types.ts';
import { namespaceOf } from '../../../lib/names.ts';
import type { ReleaseDeps } from '../deps.ts';
import { ObjectApplyError } from './deployer.ts';

/**
 * For a 403 while impersonating spec.serviceAccountName: when that ServiceAccount does not exist, say
 * so — the API server only says the (nonexistent) user is forbidden, which reads like missing RBAC.
 */
export async function missingServiceAccount(
  release: Release,
  err: unknown,
  deps: ReleaseDeps,
): Promise<string | undefined> {
  const sa = release.spec.serviceAccountName;
  if (!(err instanceof ObjectApplyError) || err.httpStatus !== 403 || sa === undefined || sa === '')
    return undefined;
  const ns = namespaceOf(release);
  const live = await deps.local
    .get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: sa })
    .catch((readErr: unknown) => {
      deps.log.warn({ err: String(readErr) }, 'could not check spec.serviceAccountName');
      return null;
    });
  if (live !== undefined) return undefined;
  return `ServiceAccount ${ns}/${sa} (spec.serviceAccountName) does not exist: create it and give it the rights to apply the render (the API said: ${err.message})`;
}
