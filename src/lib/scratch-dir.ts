// A scratch directory for the tests of one describe block (unit and e2e alike): made before them,
// removed with all it holds after them, so no test file writes its own mkdtemp/rm pair.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

/** Registers the before/after pair in the enclosing describe; the returned function names the directory. */
export function useScratchDir(prefix: string): () => string {
  let dir: string | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error(`the scratch directory ${prefix}* is made before the tests`);
    return dir;
  };
}
