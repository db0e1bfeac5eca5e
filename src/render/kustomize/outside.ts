// A kustomization that uses a file outside the source path (`../base`) fails in kustomize with an
// absolute path in convoy's private work directory (`evalsymlink failure on '/tmp/convoy-…/base'`), which
// tells the user neither what is wrong nor what to change. This finds that case in kustomize's stderr
// and says it in the Release's terms: which reference, which path field, and the path that would hold
// it (docs/kustomize.md has the layout). Pure.
import { isAbsolute, relative } from 'node:path';

/** The field that chose the files kustomize sees, and its value ('' or undefined: the source's root). */
export type SourcePathRef = { readonly field: string; readonly path: string | undefined };

/** kustomize's words for a path it could not read, and for one its load restrictor refused. */
const MISSING = /evalsymlink failure on '([^']+)'/g;
const RESTRICTED = /security; file '([^']+)' is not in or below '[^']*'/g;

/**
 * The first path kustomize could not reach because it lies outside `target` (the source path's copy in
 * the work directory), relative to `target` ('../base/app'); undefined when the failure is another one.
 */
export function outsideReference(stderr: string, target: string): string | undefined {
  for (const re of [RESTRICTED, MISSING]) {
    for (const m of stderr.matchAll(re)) {
      const p = m[1] ?? '';
      if (!isAbsolute(p)) continue;
      const rel = relative(target, p);
      if (rel === '..' || rel.startsWith('../')) return rel;
    }
  }
  return undefined;
}

const segments = (path: string | undefined): string[] =>
  (path ?? '').split('/').filter((s) => s !== '' && s !== '.');

/** The sentence for a reference outside the source path, with the path that would hold it. */
export function outsideMessage(ref: string, source: SourcePathRef | undefined): string {
  const field = source?.field ?? 'the source path';
  const root = source?.path?.startsWith('/') === true ? '/' : '';
  const parts = segments(source?.path);
  const shown = `${field} "${root}${parts.join('/')}"`;
  const up = ref.split('/').filter((s) => s === '..').length;
  const head = `the kustomization uses ${ref}, outside ${shown}: kustomize gets only the files under the path`;
  if (up > parts.length) {
    return `${head}, and ${ref} is outside the source itself; copy what it names under ${shown}`;
  }
  const wider = root + parts.slice(0, parts.length - up).join('/');
  const below = parts.slice(parts.length - up).join('/');
  return (
    `${head}; set ${field} to "${wider}"${wider === '' ? ' (the source root)' : ''}, ` +
    `with a kustomization.yaml there whose resources list ${below} (docs/kustomize.md, "Only the source path")`
  );
}
