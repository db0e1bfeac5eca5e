// The HTTP API's URL space as a pure function: method + path → the route it names, or the error the
// client gets (404 unknown path, 405 wrong method, 400 malformed name), plus the Kubernetes access
// each route needs. The handlers in server.ts only run what this file decided.
import {
  AGGREGATED_API_GROUP as API_GROUP,
  AGGREGATED_API_VERSION as API_VERSION,
  AGGREGATED_GROUP_VERSION as GROUP_VERSION,
} from '../api/constants.ts';
import { assertNever } from '../lib/assert-never.ts';
import { isRenderRef } from '../store/layout.ts';
import { type ApiError, apiError } from './status.ts';

/** The aggregated API group/version, defined with the other names in src/api/constants.ts. */
export { API_GROUP, API_VERSION, GROUP_VERSION };

export const SUBRESOURCES = ['sync', 'health', 'history', 'renders'] as const;
export type Subresource = (typeof SUBRESOURCES)[number];

interface ReleaseRef {
  readonly namespace: string;
  readonly name: string;
}

export type Route =
  | { readonly kind: 'healthz' }
  | { readonly kind: 'groupList' }
  | { readonly kind: 'group' }
  | { readonly kind: 'resourceList' }
  | ({ readonly kind: 'sync' } & ReleaseRef)
  | ({ readonly kind: 'health' } & ReleaseRef)
  | ({ readonly kind: 'history' } & ReleaseRef)
  | ({
      readonly kind: 'render';
      readonly renderRef: string;
      /** `?showSecrets=true`: Secret values unmasked, for a user who may also get secrets. */
      readonly showSecrets?: true;
    } & ReleaseRef);

export type RouteResult =
  | { readonly ok: true; readonly route: Route }
  | { readonly ok: false; readonly error: ApiError };

/** What SubjectAccessReview is asked for a route; undefined: public (discovery, healthz). */
export type Access =
  | {
      readonly verb: 'create' | 'get';
      readonly group: typeof API_GROUP;
      readonly resource: 'releases';
      readonly subresource: Subresource;
      readonly namespace: string;
      readonly name: string;
    }
  | { readonly verb: 'get'; readonly group: ''; readonly resource: 'secrets'; readonly namespace: string };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const ok = (route: Route): RouteResult => ({ ok: true, route });
const fail = (error: ApiError): RouteResult => ({ ok: false, error });

function onlyMethod(method: string, allowed: 'GET' | 'POST', route: Route, path: string): RouteResult {
  if (method === allowed) return ok(route);
  return fail(
    apiError(405, `method ${method} is not allowed on ${path}; use ${allowed}`, { allow: [allowed] }),
  );
}

/** Splits the path into decoded segments; undefined when a segment is not valid percent-encoding. */
function segmentsOf(path: string): string[] | undefined {
  const trimmed = path.replace(/\/+$/, '');
  const parts = trimmed.split('/').slice(1);
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

export function route(method: string, rawUrl: string): RouteResult {
  const path = rawUrl.split('?', 1)[0] ?? '';
  const notFound = fail(apiError(404, `the server could not find the requested resource (${path})`));
  const seg = segmentsOf(path);
  if (seg === undefined) return fail(apiError(400, `malformed percent-encoding in path ${path}`));
  const [s0, s1, s2, s3, s4, s5, s6, s7, s8, ...rest] = seg;

  if (seg.length === 1 && (s0 === 'healthz' || s0 === 'livez' || s0 === 'readyz')) {
    return onlyMethod(method, 'GET', { kind: 'healthz' }, path);
  }
  if (s0 !== 'apis') return notFound;
  if (seg.length === 1) return onlyMethod(method, 'GET', { kind: 'groupList' }, path);
  if (s1 !== API_GROUP) return notFound;
  if (seg.length === 2) return onlyMethod(method, 'GET', { kind: 'group' }, path);
  if (s2 !== API_VERSION) return notFound;
  if (seg.length === 3) return onlyMethod(method, 'GET', { kind: 'resourceList' }, path);
  // namespaces/{ns}/releases/{name}/{subresource}[/{ref}]
  if (s3 !== 'namespaces' || s5 !== 'releases' || s4 === undefined || s6 === undefined) return notFound;
  if (s7 === undefined || rest.length > 0) return notFound;
  if (!DNS_LABEL.test(s4) || s4.length > 63) {
    return fail(apiError(400, `invalid namespace ${JSON.stringify(s4)}: must be a DNS-1123 label`));
  }
  if (!DNS_SUBDOMAIN.test(s6) || s6.length > 253) {
    return fail(apiError(400, `invalid release name ${JSON.stringify(s6)}: must be a DNS-1123 subdomain`));
  }
  const ref = { namespace: s4, name: s6 };
  switch (s7) {
    case 'sync':
      return s8 === undefined ? onlyMethod(method, 'POST', { kind: 'sync', ...ref }, path) : notFound;
    case 'health':
      return s8 === undefined ? onlyMethod(method, 'GET', { kind: 'health', ...ref }, path) : notFound;
    case 'history':
      return s8 === undefined ? onlyMethod(method, 'GET', { kind: 'history', ...ref }, path) : notFound;
    case 'renders':
      if (s8 === undefined) return notFound;
      if (!isRenderRef(s8)) {
        return fail(
          apiError(400, `invalid renderRef ${JSON.stringify(s8)}: must be sha256: followed by 64 hex digits`),
        );
      }
      return onlyMethod(
        method,
        'GET',
        { kind: 'render', ...ref, renderRef: s8, ...(showSecretsOf(rawUrl) ? { showSecrets: true } : {}) },
        path,
      );
    default:
      return notFound;
  }
}

/** The SubjectAccessReview attributes a route needs (docs/http-api.md); undefined for public routes. */
export function accessFor(r: Route): Access | undefined {
  const base = { group: API_GROUP, resource: 'releases' } as const;
  switch (r.kind) {
    case 'healthz':
    case 'groupList':
    case 'group':
    case 'resourceList':
      return undefined;
    case 'sync':
      return { ...base, verb: 'create', subresource: 'sync', namespace: r.namespace, name: r.name };
    case 'health':
      return { ...base, verb: 'get', subresource: 'health', namespace: r.namespace, name: r.name };
    case 'history':
      return { ...base, verb: 'get', subresource: 'history', namespace: r.namespace, name: r.name };
    case 'render':
      return { ...base, verb: 'get', subresource: 'renders', namespace: r.namespace, name: r.name };
    default:
      return assertNever(r);
  }
}

function showSecretsOf(rawUrl: string): boolean {
  const q = rawUrl.indexOf('?');
  return q >= 0 && new URLSearchParams(rawUrl.slice(q + 1)).get('showSecrets') === 'true';
}

/** The second review a route needs: unmasked Secret values need the right to get secrets. */
export function secretsAccessFor(r: Route): Access | undefined {
  return r.kind === 'render' && r.showSecrets === true
    ? { verb: 'get', group: '', resource: 'secrets', namespace: r.namespace }
    : undefined;
}

/** `user "x" cannot create releases/sync in namespace "y"`: what a 403 says, naming the RBAC rule to add. */
export function forbiddenMessage(user: string, a: Access, reason?: string): string {
  const why = reason !== undefined && reason !== '' ? `: ${reason}` : '';
  if (a.resource === 'secrets') {
    return `user ${JSON.stringify(user)} cannot get secrets in namespace ${JSON.stringify(a.namespace)}, which showSecrets=true needs${why}`;
  }
  return (
    `user ${JSON.stringify(user)} cannot ${a.verb} ${a.resource}/${a.subresource} in namespace ` +
    `${JSON.stringify(a.namespace)} (API group ${JSON.stringify(a.group)}, release ${JSON.stringify(a.name)})${why}`
  );
}
