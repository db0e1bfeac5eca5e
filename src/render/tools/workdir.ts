// A source's files written out for a tool that reads a directory: a new private temporary directory
// (mode 0700), each path checked to stay inside it, removed when the tool is done. Only regular files
// are written, so nothing in it links outside.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SourceFile } from '../types.ts';

/** Why a source path cannot be written below a directory, or undefined when it can. */
export function unsafePath(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) {
    return `path ${JSON.stringify(path)} is not a relative path`;
  }
  if (path.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    return `path ${JSON.stringify(path)} has an empty, "." or ".." segment`;
  }
  return undefined;
}

export async function withWorkDir<T>(
  prefix: string,
  files: readonly SourceFile[],
  body: (dir: string) => Promise<T>,
  base: string = tmpdir(),
): Promise<T> {
  const dir = await mkdtemp(join(base, `convoy-${prefix}-`));
  try {
    for (const f of files) {
      const bad = unsafePath(f.path);
      if (bad !== undefined) throw new Error(bad);
      const to = join(dir, 'src', f.path);
      await mkdir(dirname(to), { recursive: true, mode: 0o700 });
      await writeFile(to, f.data, { mode: 0o600, flag: 'wx' });
    }
    await mkdir(join(dir, 'src'), { recursive: true, mode: 0o700 });
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
