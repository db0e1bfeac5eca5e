// A chart from a Helm repository (HTTP index.yaml or an OCI registry), as Argo CD's chart sources and
// Flux's HelmRepository name it, as a convoy source. Pure.
import type { ReleaseSpec } from '../api/types.ts';

export type ChartMapping =
  | { readonly kind: 'ok'; readonly source: ReleaseSpec['source']; readonly note?: string }
  | { readonly kind: 'unsupported'; readonly note: string };

export function chartRepositorySource(
  repoURL: string,
  chart: string,
  version: string | undefined,
): ChartMapping {
  return {
    kind: 'unsupported',
    note: `chart ${chart}${version === undefined ? '' : ` ${version}`} from ${repoURL}: this convoy has no Helm repository source yet; put the chart in git and import that, or write the Release by hand`,
  };
}
