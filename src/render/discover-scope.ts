// Which kinds of a render are namespaced, as the target's discovery says (docs/design.md#render). The
// controller (stage-render) and `convoy diff`/`template` ask it the same way, so both make the same render
// id for the same input. An apiVersion the server does not serve yet (404: its CRD comes in this very
// render) is left to the built-in list; any other failure is thrown, never guessed: a guessed scope
// changes where objects go and so the render's id, which would start a rollout nobody asked for.
import type { KubeClient } from '../kube/client.ts';
import { isNotFound } from '../kube/errors.ts';
import type { IsNamespaced } from './types.ts';

export async function discoverScope(
  client: Pick<KubeClient, 'resources'>,
  apiVersions: Iterable<string>,
): Promise<IsNamespaced> {
  const known = new Map<string, boolean>();
  await Promise.all(
    [...new Set(apiVersions)].map(async (v) => {
      let list: Awaited<ReturnType<KubeClient['resources']>>;
      try {
        list = await client.resources(v);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      for (const r of list) known.set(`${v}/${r.kind}`, r.namespaced);
    }),
  );
  return (apiVersion, kind) => known.get(`${apiVersion}/${kind}`);
}
