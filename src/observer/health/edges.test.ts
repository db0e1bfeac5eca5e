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

test('frontierWaveCompleted', () => {
  const cases: [string, InventoryEntry[], InventoryEntry[], string | undefined, boolean][] = [
    [
      'frontier wave turned healthy',
      [e('a', 0, NEW, 'Healthy', NEW), e('b', 1, NEW, 'Progressing', NEW)],
      [e('a', 0, NEW, 'Healthy', NEW), e('b', 1, NEW, 'Healthy', NEW)],
      NEW,
      true,
    ],
    [
      'steady: already healthy before',
      [e('b', 1, NEW, 'Healthy', NEW)],
      [e('b', 1, NEW, 'Healthy', NEW)],
      NEW,
      false,
    ],
    [
      'one of the wave still progressing',
      [e('b', 1, NEW, 'Progressing', NEW), e('c', 1, NEW, 'Progressing', NEW)],
      [e('b', 1, NEW, 'Healthy', NEW), e('c', 1, NEW, 'Progressing', NEW)],
      NEW,
      false,
    ],
    [
      'only a lower wave turned healthy',
      [e('a', 0, NEW, 'Progressing', NEW), e('b', 1, NEW, 'Progressing', NEW)],
      [e('a', 0, NEW, 'Healthy', NEW), e('b', 1, NEW, 'Progressing', NEW)],
      NEW,
      false,
    ],
    ['newly recorded entry, healthy at first sight', [], [e('a', 0, NEW, 'Healthy', NEW)], NEW, true],
    [
      'healthy before, but for the older render',
      [e('a', 0, NEW, 'Healthy', OLD)],
      [e('a', 0, NEW, 'Healthy', NEW)],
      NEW,
      true,
    ],
    [
      'leftover of an older render in a higher wave is not the frontier',
      [e('a', 0, NEW, 'Progressing', NEW), e('z', 5, OLD, 'Progressing', OLD)],
      [e('a', 0, NEW, 'Healthy', NEW), e('z', 5, OLD, 'Progressing', OLD)],
      NEW,
      true,
    ],
    [
      'leftover of an older render in the same wave does not block',
      [e('a', 2, NEW, 'Progressing', NEW), e('z', 2, OLD, 'Degraded', OLD)],
      [e('a', 2, NEW, 'Healthy', NEW), e('z', 2, OLD, 'Degraded', OLD)],
      NEW,
      true,
    ],
    [
      'no entry of the newest render yet',
      [e('z', 0, OLD, 'Progressing', OLD)],
      [e('z', 0, OLD, 'Healthy', OLD)],
      NEW,
      false,
    ],
    ['nothing attempted', [], [e('a', 0, NEW, 'Healthy', NEW)], undefined, false],
    ['empty inventory', [], [], NEW, false],
    ['negative waves', [e('a', -1, NEW, 'Progressing', NEW)], [e('a', -1, NEW, 'Healthy', NEW)], NEW, true],
  ];
  for (const [what, before, after, newest, want] of cases)
    assert.equal(frontierWaveCompleted(before, after, newest), want, what);
});

test('renderAdvanced', () => {
  const cases: [string, InventoryEntry[], boolean][] = [
    ['empty', [], false],
    [
      'all assessed for their render',
      [e('a', 0, NEW, 'Healthy', NEW), e('b', 1, OLD, 'Healthy', OLD)],
      false,
    ],
    ['an entry re-applied with a new render', [e('a', 0, NEW, 'Healthy', OLD)], true],
    ['a newly recorded entry', [e('a', 0, NEW)], true],
    ['an entry without renderRef is not assessed', [e('a', 0, undefined)], false],
  ];
  for (const [what, before, want] of cases) assert.equal(renderAdvanced(before), want, what);
});
