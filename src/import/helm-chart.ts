// A chart from a Helm repository (HTTP index.yaml), as Argo CD's chart sources and Flux's
// HelmRepository name it, as convoy's source.chart. OCI chart repositories are not carried over (convoy
// reads OCI artifacts as source.oci; a chart there is not yet a tested path). Pure.
import type { ReleaseSpec } from '../api/types.ts';

export type ChartMapping =
  | { readonly kind: 'ok'; readonly source: ReleaseSpec['source']; readonly note?: string }
  | { readonly kind: 'unsupported'; readonly note: string };

export interface ChartSecrets {
  readonly secretRef?: string;
  readonly certSecretRef?: string;
}

export function chartRepositorySource(
  repoURL: string,
  chart: string,
  version: string | undefined,
  secrets: ChartSecrets = {},
): ChartMapping {
  if (!/^https?:\/\//.test(repoURL))
    return {
      kind: 'unsupported',
      note: `chart ${chart} from ${repoURL}: an OCI chart repository is not carried over; push the chart's files as an artifact (convoy push artifact) and use source.oci with render.type Helm, or use an HTTP chart repository`,
    };
  const v = version === undefined || version === '*' ? undefined : version;
  return {
    kind: 'ok',
    source: {
      chart: {
        url: repoURL,
        name: chart,
        ...(v === undefined ? {} : { version: v }),
        ...(secrets.secretRef === undefined ? {} : { secretRef: { name: secrets.secretRef } }),
        ...(secrets.certSecretRef === undefined ? {} : { certSecretRef: { name: secrets.certSecretRef } }),
      },
    },
  };
}
