// Fixture for testenv-orphans.test.ts: starts a control plane, prints its pids and dir as
// one JSON line, then waits to be killed (or, with `exit`, exits without calling stop()).
import { startControlPlane } from '../../src/testenv/index.ts';

const mode = process.argv[2] ?? 'wait';
const cp = await startControlPlane({ workloads: process.argv[3] === 'workloads' });
process.stdout.write(`${JSON.stringify({ dir: cp.dir, processes: cp.processes() })}\n`);
if (mode === 'exit') process.exit(0);
// Keep the event loop alive until a signal arrives; the control plane's handles are unref'd.
setInterval(() => {}, 60_000);
