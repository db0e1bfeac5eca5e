import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry, Release, RolloutStatus } from '../../api/types.ts';
import { controllerWakeNeeded, frontierWaveCompleted, renderAdvanced } from './edges.ts';
import type { HealthState } from './types.ts';

const NEW = 'sha256:new';
const OLD = 'sha256:old';
const e = (
  name: string,
  wave: number,
  renderRef: string | undefined,
  state?: HealthState,
  assessedRenderRef?: string,
): InventoryEntry => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
  wave,
  ...(renderRef !== undefined ? { renderRef } : {}),
  ...(state !== undefined ? { state } : {}),
  ...(assessedRenderRef !== undefined ? { assessedRenderRef } : {}),
});

/** An entry of the newest render (NEW), assessed for it, in `state`. */
const n = (name: string, wave: number, state: HealthState) => e(name, wave, NEW, state, NEW);
/** An entry left by the older render (OLD), assessed for it. */
const o = (name: string, wave: number, state: HealthState) => e(name, wave, OLD, state, OLD);

/** An entry of the newest render recorded without a wave (the field is optional in the inventory). */
const noWave = (state: HealthState): InventoryEntry => {
  const { wave: _, ...rest } = n('w', 0, state);
  return rest;
};

test('frontierWaveCompleted', () => {
  const [H, P, D] = ['Healthy', 'Progressing', 'Degraded'] as const;
  // [what, before, after, completed] against the newest render NEW; with no attempt at all, after the table.
  const cases: [string, InventoryEntry[], InventoryEntry[], boolean][] = [
    ['frontier wave turned healthy', [n('a', 0, H), n('b', 1, P)], [n('a', 0, H), n('b', 1, H)], true],
    ['steady: already healthy before', [n('b', 1, H)], [n('b', 1, H)], false],
    ['one of the wave still progressing', [n('b', 1, P), n('c', 1, P)], [n('b', 1, H), n('c', 1, P)], false],
    ['only a lower wave turned healthy', [n('a', 0, P), n('b', 1, P)], [n('a', 0, H), n('b', 1, P)], false],
    ['newly recorded entry, healthy at first sight', [], [n('a', 0, H)], true],
    ['healthy before, but for the older render', [e('a', 0, NEW, H, OLD)], [n('a', 0, H)], true],
    [
      'leftover of an older render in a higher wave is not the frontier',
      [n('a', 0, P), o('z', 5, P)],
      [n('a', 0, H), o('z', 5, P)],
      true,
    ],
    [
      'leftover of an older render in the same wave does not block',
      [n('a', 2, P), o('z', 2, D)],
      [n('a', 2, H), o('z', 2, D)],
      true,
    ],
    ['no entry of the newest render yet', [o('z', 0, P)], [o('z', 0, H)], false],
    ['empty inventory', [], [], false],
    ['negative waves', [n('a', -1, P)], [n('a', -1, H)], true],
    [
      'an entry recorded without a wave is in wave 0, below wave 1',
      [noWave(P), n('b', 1, H)],
      [noWave(H), n('b', 1, H)],
      false,
    ],
    ['an entry recorded without a wave is in wave 0, the frontier', [noWave(P)], [noWave(H)], true],
  ];
  for (const [what, before, after, want] of cases)
    assert.equal(frontierWaveCompleted(before, after, NEW), want, what);
  assert.equal(frontierWaveCompleted([], [n('a', 0, H)], undefined), false, 'nothing attempted');
});

test('renderAdvanced', () => {
  const cases: [string, InventoryEntry[], boolean][] = [
    ['empty', [], false],
    ['all assessed for their render', [n('a', 0, 'Healthy'), o('b', 1, 'Healthy')], false],
    ['an entry re-applied with a new render', [e('a', 0, NEW, 'Healthy', OLD)], true],
    ['a newly recorded entry', [e('a', 0, NEW)], true],
    ['an entry without renderRef is not assessed', [e('a', 0, undefined)], false],
  ];
  for (const [what, before, want] of cases) assert.equal(renderAdvanced(before), want, what);
});

test('controllerWakeNeeded: a /sync only for what the inventory write does not carry to the controller', () => {
  const [H, P] = ['Healthy', 'Progressing'] as const;
  const release = (rollout?: RolloutStatus['state']): Release => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'r', namespace: 'ns' },
    spec: {
      source: { inline: { manifests: '' } },
      ...(rollout === undefined ? {} : { healthAssessment: {}, failurePolicy: { deadline: '5m' } }),
    },
    status: {
      lastAttempted: { renderRef: NEW, revision: 'r', time: '2030-01-01T00:00:00Z', applied: true },
      ...(rollout === undefined ? {} : { rollout: { state: rollout, renderRef: NEW } }),
    },
  });
  const completed = { before: [n('a', 0, P)], after: [n('a', 0, H)] };
  const steady = { before: [n('a', 0, H)], after: [n('a', 0, H)] };
  // The entry's key is noted for another render (in flux): its judgement, and so assessedRenderRef, stays.
  const inFlux = { before: [e('a', 0, NEW, P, OLD)], after: [e('a', 0, NEW, P, OLD)] };
  const cases: [string, Parameters<typeof controllerWakeNeeded>[0], boolean][] = [
    [
      'wave completed, written: the inventory watch wakes the controller',
      { release: release(), hooksFinished: 0, assessment: { ...completed, written: [{}] } },
      false,
    ],
    [
      'the same under a Progressing rollout',
      { release: release('Progressing'), hooksFinished: 0, assessment: { ...completed, written: [{}] } },
      false,
    ],
    [
      'wave completed but the rollout Failed: only a /sync wakes it',
      { release: release('Failed'), hooksFinished: 0, assessment: { ...completed, written: [{}] } },
      true,
    ],
    [
      'wave completed, RolledBack',
      { release: release('RolledBack'), hooksFinished: 0, assessment: { ...completed, written: [{}] } },
      true,
    ],
    [
      'wave completed, nothing written (the write is what wakes)',
      { release: release(), hooksFinished: 0, assessment: { ...completed, written: [] } },
      true,
    ],
    [
      'render advanced, no state or assessedRenderRef changed',
      { release: release(), hooksFinished: 0, assessment: { ...inFlux, written: [{}] } },
      true,
    ],
    ['steady pass', { release: release(), hooksFinished: 0, assessment: { ...steady, written: [] } }, false],
    [
      'a hook finished: the controller does not watch hook states',
      { release: release(), hooksFinished: 1, assessment: { ...steady, written: [] } },
      true,
    ],
    ['a hook finished, no assessment', { release: release(), hooksFinished: 1, assessment: undefined }, true],
    ['no assessment, no hook', { release: release(), hooksFinished: 0, assessment: undefined }, false],
  ];
  for (const [what, input, want] of cases) assert.equal(controllerWakeNeeded(input), want, what);
});
