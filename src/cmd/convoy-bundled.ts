// Entry of the CLI bundle (bin/convoy runs .convoy/cli/convoy.mjs, built by src/cli/bundle.ts from
// here): runs the bundled CLI, or src/cmd/convoy.ts from the sources when the bundle no longer stands
// for them (src/cli/bundled.ts says why).
import { fileURLToPath } from 'node:url';
import { staleBecause } from '../cli/bundled.ts';

if (import.meta.main) {
  // In the bundle import.meta.url names this source file (bundle.ts points it back), so the root is
  // the checkout the bundle was built from.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (staleBecause(root) === undefined) await import('./convoy.ts');
  else {
    const sources = new URL('./convoy.ts', import.meta.url).href;
    await import(sources);
  }
}
