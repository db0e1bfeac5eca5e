// Whether the CLI bundle (.convoy/cli/convoy.mjs, built by bundle.ts), or the processes' bundles
// (.convoy/cmd, src/cmd/bundle-processes.ts), still stand for the sources:
// not when a source file it was built from changed or went away since the build (you are changing
// convoy). The bundle's entry, src/cmd/convoy-bundled.ts, then runs src/cmd/convoy.ts itself, so what
// runs is always what is checked out. The check is a stat of each input the build recorded (~1 ms),
// where a `find` over src/ in the launcher cost more than the whole of `convoy help` beyond Node's own
// start.
import { existsSync, readFileSync, statSync } from 'node:fs';

/** What bundle.ts writes beside the bundle: when the build started and the files it read. */
export interface BundleInputs {
  /** ms since the epoch, taken before any source was read */
  readonly builtAt: number;
  /** paths relative to the repository root */
  readonly inputs: readonly string[];
}

export const INPUTS_FILE = '.convoy/cli/inputs.json';
/** The same record of the two processes' bundles (src/cmd/bundle-processes.ts). */
export const PROCESS_INPUTS_FILE = '.convoy/cmd/inputs.json';

/** Why the bundle whose record is `inputsFile` cannot stand for the sources under `root`, or undefined. */
export function staleBecause(root: string, inputsFile: string = INPUTS_FILE): string | undefined {
  const file = `${root}${inputsFile}`;
  if (!existsSync(file)) return `${inputsFile} is missing`;
  const m = JSON.parse(readFileSync(file, 'utf8')) as BundleInputs;
  for (const p of m.inputs) {
    const st = statSync(`${root}${p}`, { throwIfNoEntry: false });
    if (st === undefined) return `${p} was removed`;
    if (st.mtimeMs > m.builtAt) return `${p} changed`;
  }
  return undefined;
}

export type ProcessName = 'controller-manager' | 'observer';

/**
 * The script that starts a convoy process, relative to `root`: its bundle (.convoy/cmd/<name>.mjs, ~80 MiB
 * less resident memory than the sources: docs/design.md#process-bundles) while it stands for the
 * sources, else src/cmd/<name>.ts, so what runs is always what is checked out.
 */
export function processScript(root: string, name: ProcessName): string {
  return staleBecause(root, PROCESS_INPUTS_FILE) === undefined
    ? `.convoy/cmd/${name}.mjs`
    : `src/cmd/${name}.ts`;
}
