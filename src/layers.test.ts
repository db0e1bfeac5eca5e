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
