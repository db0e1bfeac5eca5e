// `npm run testenv:build`: builds (or finds) the control plane's binaries and prints where they are.
import { ensureBinaries, TestenvBuildError } from './build.ts';

try {
  const dir = await ensureBinaries();
  process.stdout.write(`testenv: binaries ready in ${dir}\n`);
} catch (err) {
  process.stderr.write(`${err instanceof TestenvBuildError ? err.message : String(err)}\n`);
  process.exit(1);
}
