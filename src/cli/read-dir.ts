// Reading a local directory as source files (`render DIR`, `diff --dir`, `push artifact`): its own small
// module so `push artifact` starts without loading the renderers.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { SourceFile } from '../render/types.ts';

/** Every regular file under `dir`, skipping dot-directories (.git); the Plain renderer picks the manifests. */
export async function readDir(dir: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const ent of await readdir(d, { withFileTypes: true })) {
      const full = join(d, ent.name);
      if (ent.isDirectory()) {
        if (!ent.name.startsWith('.')) await walk(full);
      } else if (ent.isFile()) {
        out.push({ path: relative(dir, full).split(sep).join('/'), data: await readFile(full) });
      }
    }
  };
  await walk(dir);
  return out;
}
