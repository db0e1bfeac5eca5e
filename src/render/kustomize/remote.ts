// Which entries of the kustomization files in a source would make kustomize fetch from the network
// (a git repository or an http URL as a resource, base or component). Refused unless the Release
// allows remote resources, so a render reads only its own source by default. Pure.
import { parse } from 'yaml';
import type { Problem } from '../errors.ts';
import type { SourceFile } from '../types.ts';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** Fields whose entries kustomize loads as files, directories or URLs. */
const LOADED_FIELDS = [
  'resources',
  'bases',
  'components',
  'crds',
  'configurations',
  'generators',
  'transformers',
  'validators',
] as const;

/** A URL or a go-getter-style repository address ("github.com/org/repo//dir?ref=v1"). */
export function isRemote(entry: string): boolean {
  return (
    /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(entry) ||
    /^git@/.test(entry) ||
    /^[a-z]+::/.test(entry) ||
    /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(entry) ||
    /\?(ref|version|submodules|timeout)=/.test(entry)
  );
}

export function isKustomizationFile(path: string): boolean {
  const base = path.split('/').at(-1) ?? '';
  return (KUSTOMIZATION_FILES as readonly string[]).includes(base);
}

/** Every remote entry (and helmCharts, which would download charts) in the source's kustomizations. */
export function remoteEntries(files: readonly SourceFile[]): Problem[] {
  const problems: Problem[] = [];
  const decoder = new TextDecoder();
  for (const f of files) {
    if (!isKustomizationFile(f.path)) continue;
    let doc: unknown;
    try {
      doc = parse(decoder.decode(f.data));
    } catch {
      continue; // kustomize itself reports the syntax error, with its position
    }
    if (typeof doc !== 'object' || doc === null) continue;
    const k = doc as Record<string, unknown>;
    for (const field of LOADED_FIELDS) {
      const list = k[field];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (typeof entry === 'string' && isRemote(entry)) {
          problems.push({
            where: `${f.path} ${field}[${i}]`,
            message: `remote ${JSON.stringify(entry)} is not allowed: set spec.render.kustomize.allowRemoteResources to fetch it`,
          });
        }
      });
    }
    if (Array.isArray(k.helmCharts) && k.helmCharts.length > 0) {
      problems.push({
        where: `${f.path} helmCharts`,
        message:
          'helmCharts is not supported: use render.type Helm (with render.helm.postRenderers for patches)',
      });
    }
  }
  return problems;
}
