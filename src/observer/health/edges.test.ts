import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frontierWaveCompleted, renderAdvanced } from './edges.ts';
import type { HealthState, InventoryEntry } from './types.ts';

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

test('frontierWaveCompleted', () => {
  const cases: [string, InventoryEntry[], InventoryEntry[], string | undefined, boolean][] = [
    [
      'frontier wave turned healthy',
      [n('a', 0, 'Healthy'), n('b', 1, 'Progressing')],
      [n('a', 0, 'Healthy'), n('b', 1, 'Healthy')],
      NEW,
      true,
    ],
    ['steady: already healthy before', [n('b', 1, 'Healthy')], [n('b', 1, 'Healthy')], NEW, false],
    [
      'one of the wave still progressing',
      [n('b', 1, 'Progressing'), n('c', 1, 'Progressing')],
      [n('b', 1, 'Healthy'), n('c', 1, 'Progressing')],
      NEW,
      false,
    ],
    [
      'only a lower wave turned healthy',
      [n('a', 0, 'Progressing'), n('b', 1, 'Progressing')],
      [n('a', 0, 'Healthy'), n('b', 1, 'Progressing')],
      NEW,
      false,
    ],
    ['newly recorded entry, healthy at first sight', [], [n('a', 0, 'Healthy')], NEW, true],
    [
      'healthy before, but for the older render',
      [e('a', 0, NEW, 'Healthy', OLD)],
      [n('a', 0, 'Healthy')],
      NEW,
      true,
    ],
    [
      'leftover of an older render in a higher wave is not the frontier',
      [n('a', 0, 'Progressing'), o('z', 5, 'Progressing')],
      [n('a', 0, 'Healthy'), o('z', 5, 'Progressing')],
      NEW,
      true,
    ],
    [
      'leftover of an older render in the same wave does not block',
      [n('a', 2, 'Progressing'), o('z', 2, 'Degraded')],
      [n('a', 2, 'Healthy'), o('z', 2, 'Degraded')],
      NEW,
      true,
    ],
    ['no entry of the newest render yet', [o('z', 0, 'Progressing')], [o('z', 0, 'Healthy')], NEW, false],
    ['nothing attempted', [], [n('a', 0, 'Healthy')], undefined, false],
    ['empty inventory', [], [], NEW, false],
    ['negative waves', [n('a', -1, 'Progressing')], [n('a', -1, 'Healthy')], NEW, true],
  ];
  for (const [what, before, after, newest, want] of cases)
    assert.equal(frontierWaveCompleted(before, after, newest), want, what);
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
