// The process bundles stay one-byte strings in V8: a single character outside Latin-1 anywhere in a
// bundle (a regex literal keeps its characters even with charset ascii) doubles the memory its source
// text takes for the life of the process (docs/design.md#process-bundles).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { bundleProcesses, PROCESS_BUNDLE_DIR } from './bundle-processes.ts';

test('the process bundles hold no character outside Latin-1', async () => {
  // Built from the sources as they are now, so the check is of what a fresh `npm ci` would run.
  await bundleProcesses();
  for (const name of ['controller-manager', 'observer']) {
    const text = await readFile(`${PROCESS_BUNDLE_DIR}/${name}.mjs`, 'utf8');
    const wide: string[] = [];
    for (let i = 0; i < text.length; i++)
      if (text.charCodeAt(i) > 0xff) wide.push(text.slice(Math.max(0, i - 40), i + 10));
    assert.deepEqual(wide, [], `${name}.mjs: escape these (\\uXXXX) in the source`);
  }
});
