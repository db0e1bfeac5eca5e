// The import check of `npm test`: every arrow between the folders of src/ points down the layers of
// docs/design.md#layers and no module imports itself again through others. The rules, and the arrows
// still allowed while their fix waits, are in .dependency-cruiser.cjs; `npm run lint:deps` prints the
// same findings from the command line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

test('imports point down the layers and form no cycle', async () => {
  const options = await extractDepcruiseOptions(`${ROOT}.dependency-cruiser.cjs`);
  const out = await cruise(
    ['src'],
    { ...options, baseDir: ROOT, validate: true },
    {},
    { tsConfig: extractTSConfig(`${ROOT}tsconfig.json`) },
  );
  const result = out.output as ICruiseResult;
  const found = result.summary.violations.map((v) => {
    const path = v.cycle === undefined ? '' : ` (cycle: ${v.cycle.map((c) => c.name).join(' → ')})`;
    return `${v.rule.name}: ${v.from} → ${v.to}${path}`;
  });
  assert.ok(result.summary.totalCruised > 100, `cruised only ${result.summary.totalCruised} modules`);
  assert.deepEqual(found, [], `imports that break docs/design.md#layers:\n${found.join('\n')}`);
});

test('the release controller decisions may not import a client, the harness or an action', async () => {
  const options = await extractDepcruiseOptions(`${ROOT}.dependency-cruiser.cjs`);
  const found = options.ruleSet?.forbidden?.find((r) => r.name === 'decide-is-pure');
  assert.ok(found !== undefined && 'to' in found, 'no rule decide-is-pure in .dependency-cruiser.cjs');
  const rule = found as { from: { path?: unknown }; to: { path?: unknown } };
  const from = new RegExp(String(rule.from.path));
  assert.ok(from.test('src/controller/release/decide/rollout/verdict.ts'));
  const to = [rule.to.path].flat().map((p) => new RegExp(String(p)));
  const forbidden = (path: string) => to.some((re) => re.test(path));
  for (const path of [
    'src/kube/client.ts',
    'src/runtime/index.ts',
    'src/controller/release/act/deployer.ts',
    'src/controller/release/watch/requeue.ts',
    'src/controller/release/deps.ts',
    'fs',
    'node:child_process',
  ])
    assert.ok(forbidden(path), `decide/ may import ${path}`);
  for (const path of ['src/api/types.ts', 'src/render/keys.ts', 'src/controller/release/errors.ts'])
    assert.ok(!forbidden(path), `decide/ may not import ${path}`);
});
