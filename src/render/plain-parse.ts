// The Plain renderer's one pure step, its files into manifests: run inline for a small render and in
// the parse child for one of 256 KiB or more (tools/parse-job.ts), so a large plain render never holds
// the event loop and its manifests and problems do not depend on where it was parsed
// (docs/design.md#large-renders).
import type { Problem } from './errors.ts';
import { type ManifestFormat, parseManifests } from './parse.ts';
import type { RenderResult } from './renderer.ts';
import { fail, ok } from './result.ts';
import { substitute } from './substitute.ts';
import type { Manifest } from './types.ts';

/** One manifest file as Plain reads it. */
export interface PlainFile {
  readonly path: string;
  readonly format: ManifestFormat;
  readonly data: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The manifests of `files`, in their order, each file's text substituted before it is parsed. */
export function plainManifests(
  files: readonly PlainFile[],
  vars: Readonly<Record<string, string>> | undefined,
): RenderResult {
  const problems: Problem[] = [];
  const manifests: Manifest[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = utf8.decode(file.data);
    } catch {
      problems.push({ where: file.path, message: 'not valid UTF-8' });
      continue;
    }
    if (vars !== undefined) text = substitute(text, vars);
    const parsed = parseManifests(text, file.path, file.format);
    if (parsed.ok) manifests.push(...parsed.value);
    else problems.push(...parsed.problems);
  }
  return problems.length === 0 ? ok(manifests) : fail(problems);
}
