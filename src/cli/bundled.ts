// Whether the CLI bundle (.convoy/cli/convoy.mjs, built by bundle.ts) still stands for the sources:
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

/** Why the bundle cannot stand for the sources under `root`, or undefined when it can. */
export function staleBecause(root: string): string | undefined {
  const file = `${root}${INPUTS_FILE}`;
  if (!existsSync(file)) return `${INPUTS_FILE} is missing`;
  const m = JSON.parse(readFileSync(file, 'utf8')) as BundleInputs;
  for (const p of m.inputs) {
    const st = statSync(`${root}${p}`, { throwIfNoEntry: false });
    if (st === undefined) return `${p} was removed`;
    if (st.mtimeMs > m.builtAt) return `${p} changed`;
  }
  return undefined;
}
