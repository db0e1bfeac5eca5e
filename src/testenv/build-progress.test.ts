// The build's progress lines: step numbers, elapsed times, and a heartbeat that stops with the step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doneLine, elapsed, heartbeatLine, startLine, withHeartbeat } from './build-progress.ts';

test('elapsed', () => {
  const cases: readonly (readonly [number, string])[] = [
    [0, '0s'],
    [5_400, '5s'],
    [75_000, '1m15s'],
    [600_000, '10m00s'],
    [3_720_000, '1h2m'],
    [-1, '0s'],
  ];
  for (const [ms, want] of cases) assert.equal(elapsed(ms), want, String(ms));
});

test('step lines say which step of how many, and for how long', () => {
  const c = { name: 'kube-apiserver', index: 3, total: 3, stepStarted: 1_000, buildStarted: 0 };
  assert.equal(startLine(c), 'testenv: [3/3] building kube-apiserver …');
  assert.equal(
    heartbeatLine(c, 241_000),
    'testenv: [3/3] still building kube-apiserver: 4m00s so far (4m01s in all)',
  );
  assert.equal(doneLine(c, 61_000), 'testenv: [3/3] built kube-apiserver in 1m00s');
});

test('withHeartbeat beats while the work runs and stops after', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let beats = 0;
  let finish: (v: string) => void = () => {};
  const work = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const running = withHeartbeat(
    () => work,
    () => beats++,
    1000,
  );
  t.mock.timers.tick(3500);
  assert.equal(beats, 3, 'one beat a second while running');
  finish('done');
  assert.equal(await running, 'done');
  t.mock.timers.tick(5000);
  assert.equal(beats, 3, 'no beat after the work settled');
});
