// The bundle stands for the sources only while none it was built from changed or went away.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { INPUTS_FILE, staleBecause } from './bundled.ts';

test('staleBecause: missing manifest, a changed or removed input; fresh otherwise', async () => {
  const root = `${await mkdtemp(join(tmpdir(), 'convoy-bundled-'))}/`;
  try {
    assert.equal(staleBecause(root), `${INPUTS_FILE} is missing`);
    await mkdir(`${root}src`, { recursive: true });
    await mkdir(`${root}.convoy/cli`, { recursive: true });
    await writeFile(`${root}src/a.ts`, 'export {};\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${root}src/a.ts`, old, old);
    const builtAt = Date.now() - 30_000;
    await writeFile(`${root}${INPUTS_FILE}`, JSON.stringify({ builtAt, inputs: ['src/a.ts'] }));
    assert.equal(staleBecause(root), undefined);
    await writeFile(`${root}src/a.ts`, 'export const x = 1;\n');
    assert.equal(staleBecause(root), 'src/a.ts changed');
    await writeFile(`${root}${INPUTS_FILE}`, JSON.stringify({ builtAt, inputs: ['src/gone.ts'] }));
    assert.equal(staleBecause(root), 'src/gone.ts was removed');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
