// The bundle stands for the sources only while none it was built from changed or went away.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { INPUTS_FILE, PROCESS_INPUTS_FILE, processScript, staleBecause } from './bundled.ts';

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

test('processScript: the bundle while its record stands for the sources, else the sources', async () => {
  const root = `${await mkdtemp(join(tmpdir(), 'convoy-bundled-'))}/`;
  try {
    assert.equal(processScript(root, 'observer'), 'src/cmd/observer.ts', 'no bundle built');
    await mkdir(`${root}src/cmd`, { recursive: true });
    await mkdir(`${root}.convoy/cmd`, { recursive: true });
    await writeFile(`${root}src/cmd/observer.ts`, 'export {};\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${root}src/cmd/observer.ts`, old, old);
    const record = { builtAt: Date.now() - 30_000, inputs: ['src/cmd/observer.ts'] };
    await writeFile(`${root}${PROCESS_INPUTS_FILE}`, JSON.stringify(record));
    assert.equal(processScript(root, 'observer'), '.convoy/cmd/observer.mjs');
    assert.equal(processScript(root, 'controller-manager'), '.convoy/cmd/controller-manager.mjs');
    assert.equal(staleBecause(root), `${INPUTS_FILE} is missing`, "the CLI's record is its own");
    await writeFile(`${root}src/cmd/observer.ts`, 'export const x = 1;\n');
    assert.equal(processScript(root, 'observer'), 'src/cmd/observer.ts', 'a source changed');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
