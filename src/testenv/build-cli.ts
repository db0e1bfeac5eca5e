// `npm run testenv:build` (and the first step of `npm run test:e2e`): builds (or finds) the control
// plane's binaries and the render tools (kustomize, helm, registry), and prints where they are.
import { ensureBinaries } from './build.ts';
import { TestenvBuildError } from './gobuild.ts';
import { ensureTools } from './tools.ts';

try {
  // The tools build is small; starting it first gives the control plane's long build the machine after.
  const tools = await ensureTools();
  process.stdout.write(`tools: kustomize, helm and registry ready in ${tools}\n`);
  const dir = await ensureBinaries();
  process.stdout.write(`testenv: binaries ready in ${dir}\n`);
} catch (err) {
  process.stderr.write(`${err instanceof TestenvBuildError ? err.message : String(err)}\n`);
  process.exit(1);
}
