// Builds the bundles the two processes run from (.convoy/cmd/controller-manager.mjs and observer.mjs):
// one file each, their sources and every library they use, tree-shaken. Run from the sources, each
// process holds ~80 MiB more: Node keeps the text of every .ts module it stripped, and client-node's
// entry loads its whole generated API (thousands of model classes) although convoy uses only its
// KubeConfig (docs/design.md#process-bundles). Run by `npm ci` (the prepare script) and in the image's
// build stage; processScript (src/cli/bundled.ts) picks the sources instead once one changed since.
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildFromCli, common, lazyBuiltins, recordInputs, sourceUrls, yamlEsm } from '../cli/bundle.ts';
import { PROCESS_INPUTS_FILE, type ProcessName } from '../cli/bundled.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PROCESS_BUNDLE_DIR = `${ROOT}.convoy/cmd`;
const PROCESSES: readonly ProcessName[] = ['controller-manager', 'observer'];

export async function bundleProcesses(): Promise<void> {
  const builtAt = Date.now();
  await rm(PROCESS_BUNDLE_DIR, { recursive: true, force: true });
  await mkdir(PROCESS_BUNDLE_DIR, { recursive: true });
  const result = await build({
    ...common,
    entryPoints: Object.fromEntries(PROCESSES.map((p) => [p, `${ROOT}src/cmd/${p}.ts`])),
    outdir: PROCESS_BUNDLE_DIR,
    // one file per process: nothing is shared at run time, and one file links fastest
    splitting: false,
    // V8 keeps a module's source text as long as the process runs: without comments and indentation it
    // is a third smaller. Names stay, so stack traces still read (docs/design.md#process-bundles).
    minifyWhitespace: true,
    legalComments: 'none',
    plugins: [lazyBuiltins, yamlEsm, sourceUrls(PROCESS_BUNDLE_DIR)],
  });
  await recordInputs(PROCESS_INPUTS_FILE, builtAt, [result]);
}

if (import.meta.main) await buildFromCli('convoy process bundles', PROCESS_BUNDLE_DIR, bundleProcesses);
