import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../../../api/types.ts';
import type { Obj } from '../../../../render/types.ts';
import { entry, helmResource, hookObj, NOW, R1, R2 } from './fixtures.ts';
import {
  hookOutcomes,
  liveObjects,
  type PhaseOutcomes,
  phaseOutcome,
  spentHookResources,
  spentOnceHealthy,
} from './resources.ts';

const T0 = '2025-06-01T11:00:00Z';
const LATER = '2025-06-01T11:30:00Z';

const sa = helmResource('ServiceAccount', 'init', 'pre-install,pre-upgrade', 'hook-succeeded');
const role = helmResource('ConfigMap', 'init-failed-only', 'pre-install', 'hook-failed');
const both = helmResource(
  'Secret',
  'init-both',
  'pre-upgrade',
  'before-hook-creation,hook-succeeded,hook-failed',
);
const kept = helmResource('ConfigMap', 'init-default', 'pre-install');
const post = helmResource('ConfigMap', 'smoke-config', 'post-install', 'hook-succeeded');
const plain: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'app' } };
const objects = [sa, role, both, kept, post, plain];
const names = (os: readonly Obj[]) => os.map((o) => o.metadata.name);

describe('spentHookResources', () => {
  const rows: [string, PhaseOutcomes, string[]][] = [
    ['no phase finished: nothing', {}, []],
    ['PreSync succeeded: the HookSucceeded ones of PreSync', { PreSync: 'Succeeded' }, ['init', 'init-both']],
    ['PreSync failed: the HookFailed ones', { PreSync: 'Failed' }, ['init-failed-only', 'init-both']],
    ['PostSync succeeded: the post-install one', { PostSync: 'Succeeded' }, ['smoke-config']],
    [
      'both succeeded; before-hook-creation alone and ordinary objects never',
      { PreSync: 'Succeeded', PostSync: 'Succeeded' },
      ['init', 'init-both', 'smoke-config'],
    ],
  ];
  for (const [name, outcomes, want] of rows)
    it(name, () => assert.deepEqual(names(spentHookResources(objects, outcomes)), want));
});

describe('phaseOutcome', () => {
  // the decision's kind; the outcome over the whole phase; over the hooks below a weight only
  const rows: [string, string | undefined, string | undefined][] = [
    ['none', undefined, undefined],
    ['arm', undefined, undefined],
    ['waiting', undefined, undefined],
    ['succeeded', 'Succeeded', undefined],
    ['failed', 'Failed', 'Failed'],
  ];
  for (const [kind, whole, part] of rows)
    it(kind, () => {
      assert.equal(phaseOutcome({ kind }), whole);
      assert.equal(phaseOutcome({ kind }, 'part'), part);
    });
});

describe('hookOutcomes and liveObjects: read from the hook entries of R', () => {
  const hooks = [hookObj('init', 'PreSync'), hookObj('smoke', 'PostSync')];
  const ok = (name: string, phase: 'PreSync' | 'PostSync', ref = R1) =>
    entry(name, phase, ref, T0, { state: 'Succeeded', finishedAt: T0 });
  const rows: [string, readonly InventoryHook[], string | undefined, PhaseOutcomes, string[]][] = [
    ['nothing armed yet: every object', [], undefined, {}, names(objects)],
    [
      'PreSync of R succeeded: its HookSucceeded resources are spent',
      [ok('init', 'PreSync')],
      undefined,
      { PreSync: 'Succeeded' },
      ['init-failed-only', 'init-default', 'smoke-config', 'app'],
    ],
    [
      'PreSync still running: nothing spent',
      [entry('init', 'PreSync', R1, T0, { state: 'Running' })],
      undefined,
      {},
      names(objects),
    ],
    [
      'PreSync failed: its HookFailed resources are spent',
      [entry('init', 'PreSync', R1, T0, { state: 'Failed', finishedAt: T0 })],
      undefined,
      { PreSync: 'Failed' },
      ['init', 'init-default', 'smoke-config', 'app'],
    ],
    [
      'both phases succeeded',
      [ok('init', 'PreSync'), ok('smoke', 'PostSync')],
      undefined,
      { PreSync: 'Succeeded', PostSync: 'Succeeded' },
      ['init-failed-only', 'init-default', 'app'],
    ],
    [
      "another render's success: a new render applies them again",
      [ok('init', 'PreSync', R2), ok('smoke', 'PostSync', R2)],
      undefined,
      {},
      names(objects),
    ],
    [
      'a forced sync since the run: the phase runs again, so they are needed again',
      [ok('init', 'PreSync'), ok('smoke', 'PostSync')],
      LATER,
      {},
      names(objects),
    ],
  ];
  for (const [name, entries, forcedAt, outcomes, live] of rows) {
    it(name, () => {
      const input = { renderRef: R1, hooks, entries, forcedAt, now: NOW };
      assert.deepEqual(hookOutcomes(input), outcomes);
      assert.deepEqual(names(liveObjects(objects, input)), live);
    });
  }

  it('without PreSync hooks a pre-install resource is an ordinary object, whatever its policy', () => {
    const input = {
      renderRef: R1,
      hooks: [hookObj('smoke', 'PostSync')],
      entries: [],
      forcedAt: undefined,
      now: NOW,
    };
    assert.deepEqual(hookOutcomes(input), {});
    assert.equal(liveObjects(objects, input), objects);
  });

  it('a render without hook resources is returned as it is', () => {
    const input = { renderRef: R1, hooks, entries: [ok('init', 'PreSync')], forcedAt: undefined, now: NOW };
    const render = [plain];
    assert.equal(liveObjects(render, input), render);
  });
});

describe('spentOnceHealthy (a rollback to the last healthy render)', () => {
  it('the HookSucceeded resources of the phases L has hooks of', () => {
    const withPre = { objects, hooks: [hookObj('init', 'PreSync')] };
    assert.deepEqual(names(spentOnceHealthy(withPre)), ['init', 'init-both']);
    const withBoth = { objects, hooks: [hookObj('init', 'PreSync'), hookObj('smoke', 'PostSync')] };
    assert.deepEqual(names(spentOnceHealthy(withBoth)), ['init', 'init-both', 'smoke-config']);
    assert.deepEqual(spentOnceHealthy({ objects, hooks: [] }), []);
  });
});
