// Where the web UI is served behind the aggregated API (docs/ui.md#in-a-cluster), as a pure function of
// the request path. Two forms, one per scope:
//   /apis/api.convoy.kumodo.io/v1alpha1/ui/web/proxy/…                    every namespace the user may list
//   /apis/api.convoy.kumodo.io/v1alpha1/namespaces/NS/ui/web/proxy/…      namespace NS
// kube-apiserver reads them as resource `ui`, name `web`, subresource `proxy` (namespaced or not), so
// one RBAC rule grants the UI (`get`, and `create` for its writes: resources ["ui/proxy"]), and a
// `proxy` subresource is a long-running request to it: the pages' event stream is not cut at the
// request timeout.
import { AGGREGATED_API_GROUP, AGGREGATED_API_VERSION } from '../api/constants.ts';

const PREFIX = `/apis/${AGGREGATED_API_GROUP}/${AGGREGATED_API_VERSION}`;
const TAIL = '/ui/web/proxy';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface UiPath {
  /** Undefined: every namespace the user may list. */
  readonly namespace: string | undefined;
  /** The path the UI is mounted at (no trailing slash): its pages link and fetch under it. */
  readonly root: string;
  /** The rest of the path, '/' at least. */
  readonly rest: string;
}

/** The UI path a request names, or undefined for every other path of the API. */
export function uiPath(rawUrl: string): UiPath | undefined {
  const path = rawUrl.split('?', 1)[0] ?? '';
  if (!path.startsWith(`${PREFIX}/`)) return undefined;
  const after = path.slice(PREFIX.length);
  let namespace: string | undefined;
  let tail = after;
  const ns = /^\/namespaces\/([^/]+)(\/.*)$/.exec(after);
  if (ns !== null) {
    namespace = ns[1] ?? '';
    tail = ns[2] ?? '';
    if (!DNS_LABEL.test(namespace) || namespace.length > 63) return undefined;
  }
  if (tail !== TAIL && !tail.startsWith(`${TAIL}/`)) return undefined;
  const root = `${PREFIX}${namespace === undefined ? '' : `/namespaces/${namespace}`}${TAIL}`;
  return { namespace, root, rest: tail.slice(TAIL.length) || '/' };
}
