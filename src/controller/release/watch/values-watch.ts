// render.helm.valuesFrom, watched (as Flux watches a HelmRelease's labelled values): the ConfigMaps and
// Secrets labelled convoy.kumodo.io/watch=true are informed on, and a change of one's data wakes the
// Helm Releases of its namespace that name it, so a new values Secret is a new render at once. Others
// are read on every reconcile and so are picked up at the next syncPolicy.interval. Only labelled
// objects are cached: a cluster's Secrets (the render store's among them) stay out of memory.
import { LABEL_WATCH } from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import { type Controller, changed, type Harness, type KubeObject, keyOf } from '../../../runtime/index.ts';

type Cached<T> = T & KubeObject;
type WithData = Cached<{ data?: Record<string, string>; binaryData?: Record<string, string> }>;

/** The keys of the Releases among `releases` whose valuesFrom names this `kind` `name`. */
export function releasesNaming(
  releases: readonly Release[],
  kind: 'ConfigMap' | 'Secret',
  name: string,
): string[] {
  return releases
    .filter((r) => r.spec.render?.type === 'Helm')
    .filter((r) => (r.spec.render?.helm?.valuesFrom ?? []).some((v) => v.kind === kind && v.name === name))
    .map((r) => keyOf(r as Cached<Release>));
}

export function watchValuesFrom<T extends KubeObject>(
  harness: Harness,
  controller: Controller<T>,
  releasesIn: (namespace: string) => readonly Release[],
): void {
  for (const [kind, plural] of [
    ['ConfigMap', 'configmaps'],
    ['Secret', 'secrets'],
  ] as const) {
    const informer = harness.informer<WithData>({
      path: `/api/v1/${plural}`,
      labelSelector: `${LABEL_WATCH}=true`,
      stripManagedFields: true,
    });
    controller.watch({
      informer,
      updateFilter: changed((o: WithData) => [o.data, o.binaryData]),
      keys: (o) => releasesNaming(releasesIn(o.metadata?.namespace ?? ''), kind, o.metadata?.name ?? ''),
    });
  }
}
