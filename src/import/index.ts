// `convoy import`'s core: Argo CD Applications and Flux Kustomizations / HelmReleases (with the Flux
// source objects among the same documents) in, Releases and notes out. Pure; the CLI reads the files
// and prints. See docs/migrating.md.
import { importArgoApplication, isArgoApplication } from './argo.ts';
import {
  importFluxHelmRelease,
  importFluxKustomization,
  isFluxHelmRelease,
  isFluxKustomization,
  isFluxSource,
  type SourceLookup,
} from './flux.ts';
import {
  asRecord,
  type Doc,
  type DocImport,
  describeDoc,
  type ImportedRelease,
  type ImportNote,
  type ImportOptions,
  type ImportResult,
  str,
} from './types.ts';

export type { Doc, ImportedRelease, ImportNote, ImportOptions, ImportResult } from './types.ts';

export function importDocs(docs: readonly Doc[], opts: ImportOptions = {}): ImportResult {
  const sources = docs.filter(isFluxSource);
  const lookup: SourceLookup = (kind, name, namespace) =>
    sources.find((s) => {
      const m = asRecord(s.metadata);
      return s.kind === kind && m.name === name && (str(m.namespace) ?? namespace) === namespace;
    });
  const releases: ImportedRelease[] = [];
  const notes: ImportNote[] = [];
  for (const d of docs) {
    let r: DocImport | undefined;
    if (isArgoApplication(d)) r = importArgoApplication(d, opts);
    else if (isFluxKustomization(d)) r = importFluxKustomization(d, lookup, opts);
    else if (isFluxHelmRelease(d)) r = importFluxHelmRelease(d, lookup, opts);
    else if (isFluxSource(d)) continue;
    else if (d.kind === 'ApplicationSet')
      notes.push({
        object: describeDoc(d),
        field: 'spec.generators',
        message:
          'ApplicationSets are not imported: import the Applications it generates (argocd app get -o yaml)',
      });
    else
      notes.push({
        object: describeDoc(d),
        field: 'kind',
        message: 'not an Argo CD or Flux object; skipped',
      });
    if (r === undefined) continue;
    if (r.release !== undefined) releases.push(r.release);
    notes.push(...r.notes);
  }
  return { releases, notes };
}
