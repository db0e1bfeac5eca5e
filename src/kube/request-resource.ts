// Which resource an API path addresses, for counting requests by resource (metrics, benches): the
// plural with its subresource, without namespace, name or query, so the label set stays small.

/** '/api/v1/namespaces/a/configmaps/b' → 'configmaps'; '.../releases/r/status' → 'releases/status'. */
export function resourceOfPath(path: string): string {
  const parts = (path.split('?')[0] ?? '').split('/').filter((p) => p !== '');
  // /api/<version>/… or /apis/<group>/<version>/…
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') rest = parts.slice(3);
  else return parts[0] === undefined ? '/' : `/${parts[0]}`;
  if (rest.length === 0) return 'discovery';
  // namespaces/<ns>/<plural>… is namespaced; a bare namespaces[/<name>] is the Namespace resource itself
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [plural, , sub] = rest;
  return sub === undefined ? (plural ?? 'discovery') : `${plural}/${sub}`;
}
