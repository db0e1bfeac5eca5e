// Every place that starts a convoy process passes PROCESS_NODE_FLAGS: the deploy manifests and the image
// (read here), `convoy dev` and the test harness (which import the constant).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { PROCESS_NODE_FLAGS } from './node-flags.ts';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFile(new URL(path, root), 'utf8');

test('the deploy manifests and the image start the processes with PROCESS_NODE_FLAGS', async () => {
  for (const [file, script] of [
    ['deploy/controller-manager/deployment.yaml', '\\.convoy/cmd/controller-manager\\.mjs'],
    ['deploy/observer/deployment.yaml', '\\.convoy/cmd/observer\\.mjs'],
  ] as const)
    assert.match(
      await read(file),
      new RegExp(`command: \\[node, ${PROCESS_NODE_FLAGS.join(', ')}, ${script}\\]`),
      file,
    );
  const cmd = JSON.stringify([
    'node',
    ...PROCESS_NODE_FLAGS,
    '.convoy/cmd/controller-manager.mjs',
  ]).replaceAll(',', ', ');
  assert.ok((await read('Dockerfile')).includes(`CMD ${cmd}`), 'Dockerfile CMD');
});
