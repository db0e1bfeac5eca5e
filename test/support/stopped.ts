// Shared check that a stopped control plane left nothing behind: no process, no temp dir.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type ControlPlane, isAlive } from '../../src/testenv/index.ts';

export async function assertStopsCleanly(cp: ControlPlane, expected: readonly string[]): Promise<void> {
  const procs = cp.processes();
  assert.deepEqual(
    procs.map((p) => p.name).sort(),
    [...expected, 'watchdog'].sort(),
    'processes running before stop',
  );
  for (const p of procs) assert.ok(isAlive(p.pid), `${p.name} (pid ${p.pid}) should run before stop`);
  assert.ok(existsSync(cp.dir));

  await cp.stop();

  const survivors = procs.filter((p) => isAlive(p.pid));
  assert.deepEqual(survivors, [], 'no process of the control plane survives stop()');
  assert.equal(existsSync(cp.dir), false, `temp dir ${cp.dir} is removed`);
  assert.deepEqual(cp.processes(), []);
  // Idempotent: a second stop (as in after()) neither throws nor hangs.
  await cp.stop();
}
