// `npm run gen:crds`: writes deploy/crds/*.yaml from the TypeBox schemas. Importable: crds.test.ts renders
// the same files in memory to catch drift between the schemas and the committed manifests.
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { buildCrds, crdFileName } from './crds.ts';

export const CRD_DIR = fileURLToPath(new URL('../../deploy/crds/', import.meta.url));

const HEADER = '# Generated from src/api/schema by `npm run gen:crds`. Do not edit.\n';

/** File name → YAML text of every CRD. */
export function renderCrdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const crd of buildCrds()) {
    files.set(crdFileName(crd), HEADER + stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false }));
  }
  return files;
}

async function main(): Promise<void> {
  const files = renderCrdFiles();
  for (const name of await readdir(CRD_DIR)) {
    if (name.endsWith('.yaml') && !files.has(name)) await rm(join(CRD_DIR, name));
  }
  for (const [name, text] of files) await writeFile(join(CRD_DIR, name), text);
  process.stdout.write(`wrote ${files.size} CRDs to ${CRD_DIR}\n`);
}

if (import.meta.main) await main();
