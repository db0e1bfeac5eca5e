// H6 "It never renders." (docs/design.md#health-loop): the health loop assesses the inventory, never a
// render. Shown by what its code can reach: of src/render and src/store, every module the HealthController
// imports, directly or through others, is one of the pure helpers below (keys, canonical names, masking,
// the store's label and name layout) — no renderer, no source, no render store.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const START = 'observer/health/loop/controller.ts';
const ALLOWED = new Set([
  'render/canonical.ts',
  'render/keys.ts',
  'render/secret-mask.ts',
  'render/types.ts',
  'store/errors.ts',
  'store/layout.ts',
  'store/types.ts',
]);
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'(\.[^']+\.ts)'|import\(\s*'(\.[^']+\.ts)'\s*\)/g;

/** Every module of src/ that `start` reaches through relative imports (type imports too). */
async function reachable(start: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const todo = [start];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(join(SRC, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec !== undefined) todo.push(relative(SRC, join(SRC, dirname(file), spec)));
    }
  }
  return seen;
}

it('H6 "It never renders": the health loop reaches no renderer, source or render store', async () => {
  const modules = await reachable(START);
  assert.ok(modules.has('observer/health/loop/assess.ts'), 'the walk follows the imports');
  assert.ok(modules.has('store/layout.ts'), 'the walk reaches src/store');
  const renderOrStore = [...modules].filter((m) => m.startsWith('render/') || m.startsWith('store/'));
  assert.deepEqual(
    renderOrStore.filter((m) => !ALLOWED.has(m)),
    [],
    'the health loop must not import what renders or reads renders',
  );
});

it('the walk would see a renderer: the drift loop, which reads renders from the store, reaches it', async () => {
  const modules = await reachable('observer/drift/controller.ts');
  assert.ok(modules.has('store/secrets.ts'));
});
