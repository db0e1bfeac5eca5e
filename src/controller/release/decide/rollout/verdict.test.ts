// Table tests of verdict, row by row of docs/design.md#verdict with first-match cases.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entry, hook, obj, R1, R2 } from './fixtures.ts';
import type { HookPhase } from './types.ts';
import { type VerdictInput, verdict } from './verdict.ts';

const a = obj('a');
const b = obj('b');
const c = obj('c', 'ConfigMap', 'web', '');

function input(
  over: Partial<VerdictInput> & { hooksOfR?: { name: string; phase: HookPhase }[] },
): VerdictInput {
  return {
    render: { renderRef: R2, objects: [a, b, c], hooks: over.hooksOfR ?? [] },
    entries: [entry(a, R2, 'Healthy'), entry(b, R2, 'Healthy'), entry(c, R2, 'Healthy')],
    hooks: [],
    observerLive: true,
    ...over,
  };
}

describe('verdict (docs/design.md#verdict, first matching row)', () => {
  test('row 1: observer not live → Pending, even with a failed hook and degraded objects', () => {
    const v = verdict(
      input({
        observerLive: false,
        entries: [entry(a, R2, 'Degraded'), entry(b, R2, 'Degraded'), entry(c, R2, 'Degraded')],
        hooks: [hook('migrate', 'PreSync', R2, 'Failed')],
      }),
    );
    assert.equal(v.kind, 'Pending');
    assert.equal(v.reason, 'ObserverNotLive');
  });

  test('row 2: a PreSync hook of R failed → Unhealthy, before the Pending row (objects never applied)', () => {
    const v = verdict(input({ entries: [], hooks: [hook('migrate', 'PreSync', R2, 'Failed')] }));
    assert.equal(v.kind, 'Unhealthy');
    assert.equal(v.reason, 'HookFailed');
    assert.match(v.message, /^PreSync hook migrate of sha256:222222222222… failed/);
  });

  test('row 2: a PostSync hook of R failed → Unhealthy, with the hook reason and message', () => {
    const failed = { ...hook('smoke', 'PostSync', R2, 'Failed'), reason: 'Timeout', message: 'ran 5m' };
    const v = verdict(input({ hooks: [failed] }));
    assert.deepEqual([v.kind, v.reason], ['Unhealthy', 'HookFailed']);
    assert.match(v.message, /failed: Timeout: ran 5m$/);
  });

  test('row 2 does not count a failed hook of another render, nor SyncFail/PreDelete/PostDelete hooks', () => {
    const hooks = [
      hook('migrate', 'PreSync', R1, 'Failed'),
      hook('notify', 'SyncFail', R2, 'Failed'),
      hook('pre', 'PreDelete', R2, 'Failed'),
      hook('post', 'PostDelete', R2, 'Failed'),
    ];
    assert.equal(verdict(input({ hooks })).kind, 'Healthy');
  });

  test('a re-armed hook (createdAt after finishedAt) is not finished, whatever its old state says', () => {
    const rearmed = hook('migrate', 'PreSync', R2, 'Failed', {
      createdAt: '2025-06-01T12:05:00Z',
      finishedAt: '2025-06-01T12:01:00Z',
    });
    const v = verdict(input({ hooks: [rearmed] }));
    assert.deepEqual([v.kind, v.reason], ['Pending', 'HookRunning']);
  });

  test('row 3: an object of R not yet recorded with renderRef R → Pending', () => {
    const v = verdict(input({ entries: [entry(a, R2, 'Healthy'), entry(b, R1, 'Healthy')] }));
    assert.deepEqual([v.kind, v.reason], ['Pending', 'NotYetRecorded']);
    assert.match(
      v.message,
      /^2 of 3 objects not yet applied for sha256:222222222222…: Deployment web\/b; ConfigMap web\/c$/,
    );
  });

  test('row 3: the waves wait for a running PreSync hook of R → Pending, reason HookRunning (its deadline counts)', () => {
    const v = verdict(
      input({
        entries: [entry(a, R1, 'Healthy')],
        hooks: [hook('migrate', 'PreSync', R2, 'Running', { createdAt: '2025-06-01T12:00:00Z' })],
      }),
    );
    assert.deepEqual([v.kind, v.reason], ['Pending', 'HookRunning']);
    assert.match(
      v.message,
      /^PreSync hook migrate of sha256:222222222222… has not finished; 3 of 3 objects not yet applied/,
    );
  });

  test('no early verdict: everything Healthy for R1 says nothing about R2', () => {
    const v = verdict(
      input({ entries: [entry(a, R1, 'Healthy'), entry(b, R1, 'Healthy'), entry(c, R1, 'Healthy')] }),
    );
    assert.equal(v.kind, 'Pending');
  });

  test('row 3: recorded with R but assessed for another render → Pending "not yet assessed"', () => {
    const stale = { ...entry(b, R2, 'Degraded'), assessedRenderRef: R1 };
    const fresh = { ...entry(c, R2, undefined), assessedRenderRef: undefined };
    const v = verdict(input({ entries: [entry(a, R2, 'Healthy'), stale, fresh] }));
    assert.deepEqual([v.kind, v.reason], ['Pending', 'NotYetAssessed']);
    assert.equal(
      v.message,
      '2 of 3 objects not yet assessed for sha256:222222222222…: Deployment web/b; ConfigMap web/c',
    );
  });

  test('row 3: an entry Unknown → Pending, even when another is Degraded (earlier row wins)', () => {
    const unknown = { ...entry(a, R2, 'Unknown'), message: 'no such key' };
    const v = verdict(input({ entries: [unknown, entry(b, R2, 'Degraded'), entry(c, R2, 'Healthy')] }));
    assert.deepEqual([v.kind, v.reason], ['Pending', 'HealthUnknown']);
    assert.match(v.message, /Deployment web\/a Unknown: no such key/);
  });

  test('row 3: a PreSync/PostSync hook of R still running → Pending, even with a Degraded entry', () => {
    const v = verdict(
      input({
        entries: [entry(a, R2, 'Degraded'), entry(b, R2, 'Healthy'), entry(c, R2, 'Healthy')],
        hooks: [hook('smoke', 'PostSync', R2, 'Running', { createdAt: '2025-06-01T12:00:00Z' })],
      }),
    );
    assert.deepEqual([v.kind, v.reason], ['Pending', 'HookRunning']);
  });

  test('row 4: entries Progressing or Degraded → Unhealthy', () => {
    const degraded = { ...entry(b, R2, 'Degraded'), message: 'available 0' };
    const v = verdict(input({ entries: [entry(a, R2, 'Progressing'), degraded, entry(c, R2, 'Healthy')] }));
    assert.deepEqual([v.kind, v.reason], ['Unhealthy', 'ObjectsUnhealthy']);
    assert.equal(
      v.message,
      '2 of 3 objects of sha256:222222222222… not healthy: Deployment web/a Progressing; Deployment web/b Degraded: available 0',
    );
  });

  test('row 4: an unhealthy render whose PostSync hook is not armed yet is Unhealthy, not Pending forever', () => {
    const v = verdict(
      input({
        hooksOfR: [{ name: 'smoke', phase: 'PostSync' }],
        entries: [entry(a, R2, 'Degraded'), entry(b, R2, 'Healthy'), entry(c, R2, 'Healthy')],
      }),
    );
    assert.equal(v.kind, 'Unhealthy');
  });

  test('row 5: every entry Healthy for R and every PreSync/PostSync hook of R Succeeded → Healthy', () => {
    const v = verdict(
      input({
        hooksOfR: [
          { name: 'migrate', phase: 'PreSync' },
          { name: 'smoke', phase: 'PostSync' },
        ],
        hooks: [hook('migrate', 'PreSync', R2, 'Succeeded'), hook('smoke', 'PostSync', R2, 'Succeeded')],
      }),
    );
    assert.deepEqual(v, {
      kind: 'Healthy',
      reason: 'Healthy',
      message: '3 of 3 objects of sha256:222222222222… healthy and 2 hooks succeeded',
    });
  });

  test('all objects Healthy but a declared PostSync hook of R not armed yet → Pending, not Healthy', () => {
    const v = verdict(
      input({
        hooksOfR: [{ name: 'smoke', phase: 'PostSync' }],
        hooks: [hook('smoke', 'PostSync', R1, 'Succeeded')],
      }),
    );
    assert.deepEqual([v.kind, v.reason], ['Pending', 'HookNotStarted']);
  });

  test('leftover entries of objects that left the render do not decide the verdict of R', () => {
    const gone = obj('gone');
    const v = verdict(input({ entries: [...input({}).entries, entry(gone, R1, 'Degraded')] }));
    assert.equal(v.kind, 'Healthy');
  });

  test('a render with no objects and no hooks is Healthy', () => {
    const v = verdict({
      render: { renderRef: R2, objects: [], hooks: [] },
      entries: [],
      hooks: [],
      observerLive: true,
    });
    assert.equal(v.kind, 'Healthy');
  });

  test('a long list of objects is cut after three names', () => {
    const objs = ['a', 'b', 'c', 'd', 'e'].map((n) => obj(n));
    const v = verdict({
      render: { renderRef: R2, objects: objs, hooks: [] },
      entries: objs.map((o) => entry(o, R2, 'Degraded')),
      hooks: [],
      observerLive: true,
    });
    assert.match(v.message, /^5 of 5 objects .*Deployment web\/c Degraded; and 2 more$/);
  });
});
