import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../../../api/types.ts';
import { type CleanupMoment, departedHooks, recordedWorkloads, workloadsToDelete } from './cleanup.ts';
import { hookDefs, hookWorkloadName } from './defs.ts';
import { entry, hookObj, R1, R2 } from './fixtures.ts';

const T0 = '2025-06-01T11:00:00Z';
const T1 = '2025-06-01T11:05:00Z';
const succeeded = entry('m', 'PreSync', R1, T0, { state: 'Succeeded', finishedAt: T1 });
const failed = entry('m', 'PreSync', R1, T0, { state: 'Failed', finishedAt: T1 });
const ref = { kind: 'Job', namespace: 'app', name: hookWorkloadName('m', R1) };

describe('workloadsToDelete (delete policies)', () => {
  const table: [string | undefined, CleanupMoment, InventoryHook, boolean][] = [
    // default: BeforeHookCreation
    [undefined, 'beforeCreation', succeeded, true],
    [undefined, 'finished', succeeded, false],
    [undefined, 'finished', failed, false],
    ['BeforeHookCreation', 'beforeCreation', failed, true],
    ['HookSucceeded', 'finished', succeeded, true],
    ['HookSucceeded', 'finished', failed, false],
    ['HookSucceeded', 'beforeCreation', succeeded, false],
    ['HookFailed', 'finished', failed, true],
    ['HookFailed', 'finished', succeeded, false],
    ['HookSucceeded,HookFailed', 'finished', failed, true],
    ['HookSucceeded,HookFailed', 'finished', succeeded, true],
    ['BeforeHookCreation,HookSucceeded', 'beforeCreation', failed, true],
  ];
  for (const [policy, moment, e, want] of table) {
    it(`${policy ?? '(default)'} at ${moment}, ${e.state} → ${want ? 'delete' : 'keep'}`, () => {
      const [hook] = hookDefs([hookObj('m', 'PreSync', policy === undefined ? {} : { policy })]);
      assert.ok(hook);
      if (hook === undefined) return;
      assert.deepEqual(workloadsToDelete(e, hook, moment), want ? [ref] : []);
    });
  }
  it('nothing to delete when the entry recorded no workload', () => {
    const [hook] = hookDefs([hookObj('m', 'PreSync')]);
    if (hook === undefined) return assert.fail('no hook');
    assert.deepEqual(workloadsToDelete({ name: 'm' }, hook, 'beforeCreation'), []);
  });
});

describe('recordedWorkloads and departedHooks', () => {
  const hooks = hookDefs([hookObj('m', 'PreSync', { namespace: 'db' })]);
  const gone = entry('old', 'PostSync', R2, T0, {}, 'Pod');
  it('recordedWorkloads names every recorded workload, namespace from the render when known', () => {
    assert.deepEqual(recordedWorkloads([succeeded, gone], hooks), [
      { kind: 'Job', namespace: 'db', name: hookWorkloadName('m', R1) },
      { kind: 'Pod', namespace: undefined, name: hookWorkloadName('old', R2) },
    ]);
  });
  it('departedHooks: entries of hooks the render no longer has', () => {
    assert.deepEqual(departedHooks([succeeded, gone], hooks), {
      names: ['old'],
      workloads: [{ kind: 'Pod', namespace: undefined, name: hookWorkloadName('old', R2) }],
    });
  });
  it('the namespace an entry recorded wins over the render’s (a hook that moved namespaces)', () => {
    const moved = { ...succeeded, namespace: 'old-ns' };
    assert.deepEqual(recordedWorkloads([moved], hooks), [
      { kind: 'Job', namespace: 'old-ns', name: hookWorkloadName('m', R1) },
    ]);
    assert.deepEqual(departedHooks([{ ...gone, namespace: 'web' }], hooks).workloads, [
      { kind: 'Pod', namespace: 'web', name: hookWorkloadName('old', R2) },
    ]);
  });
});
