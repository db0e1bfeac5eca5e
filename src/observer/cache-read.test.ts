// Table tests of when the observer may read a live object from its watch cache (docs/design.md#watched-reads),
// and of what a watch caches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atLeast, type CacheReadInput, decideCacheRead, floorOf } from './cache-read.ts';
import { stripped } from './target-watch.ts';

const R1 = 'sha256:1';
const R2 = 'sha256:2';
const synced = (extra: Partial<CacheReadInput>): CacheReadInput => ({
  watch: 'synced',
  renderRef: R1,
  floor: { renderRef: R1, resourceVersion: '100' },
  cachedResourceVersion: '100',
  ...extra,
});

describe('decideCacheRead', () => {
  const cases: [string, CacheReadInput, string][] = [
    ['cache at the floor', synced({}), 'cache'],
    ['cache past the floor (a later event)', synced({ cachedResourceVersion: '250' }), 'cache'],
    ['cache behind the fresh read', synced({ cachedResourceVersion: '99' }), 'api:stale'],
    ['watch still listing', synced({ watch: 'starting' }), 'api:noWatch'],
    ['watch given up (LIST forbidden)', synced({ watch: 'fallback' }), 'api:noWatch'],
    ['no fresh read yet', synced({ floor: undefined }), 'api:unconfirmed'],
    ['fresh read was for the previous render', synced({ renderRef: R2 }), 'api:unconfirmed'],
    ['an entry without renderRef', synced({ renderRef: undefined }), 'api:unconfirmed'],
    ['not cached: deleted or unlabelled', synced({ cachedResourceVersion: undefined }), 'api:missing'],
    ['a resourceVersion that is not a number', synced({ cachedResourceVersion: 'abc' }), 'api:stale'],
    [
      'floor of another render, cache past it (taken before a later apply)',
      synced({ floor: { renderRef: R2, resourceVersion: '300' }, cachedResourceVersion: '400' }),
      'api:unconfirmed',
    ],
    ['a floor that is not a number', synced({ floor: { renderRef: R1, resourceVersion: 'x' } }), 'api:stale'],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const d = decideCacheRead(input);
      assert.equal(d.kind === 'cache' ? 'cache' : `api:${d.why}`, want);
    });
  }
});

describe('floorOf', () => {
  const read = { renderRef: R1, resourceVersion: '120' };
  const cases: [string, Parameters<typeof floorOf>[0], Parameters<typeof floorOf>[1], unknown][] = [
    ["a read for the entry's render wins", read, { renderRef: R1, appliedResourceVersion: '100' }, read],
    [
      'the recorded apply version when no read was made',
      undefined,
      { renderRef: R1, appliedResourceVersion: '100' },
      { renderRef: R1, resourceVersion: '100' },
    ],
    [
      'the recorded apply version over a read of the previous render',
      { renderRef: R2, resourceVersion: '90' },
      { renderRef: R1, appliedResourceVersion: '100' },
      { renderRef: R1, resourceVersion: '100' },
    ],
    [
      'nothing recorded: the read as it is',
      { renderRef: R2, resourceVersion: '90' },
      { renderRef: R1 },
      {
        renderRef: R2,
        resourceVersion: '90',
      },
    ],
    ['no renderRef: no recorded floor', undefined, { appliedResourceVersion: '100' }, undefined],
    ['neither', undefined, { renderRef: R1 }, undefined],
  ];
  for (const [name, r, ref, want] of cases) {
    it(name, () => assert.deepEqual(floorOf(r, ref), want));
  }
  it('a recorded floor the cache has reached reads from the cache with no GET', () => {
    const floor = floorOf(undefined, { renderRef: R1, appliedResourceVersion: '100' });
    assert.equal(decideCacheRead(synced({ floor, cachedResourceVersion: '100' })).kind, 'cache');
    assert.equal(decideCacheRead(synced({ floor, cachedResourceVersion: '99' })).kind, 'api');
  });
});

describe('atLeast', () => {
  it('compares as integers, not strings', () => {
    assert.equal(atLeast('1000', '999'), true);
    assert.equal(atLeast('999', '1000'), false);
    assert.equal(atLeast('18446744073709551617', '18446744073709551616'), true);
    assert.equal(atLeast('', '1'), false);
  });
});

describe('stripped', () => {
  it('drops the last-applied annotation, keeps the others, sets apiVersion and kind', () => {
    const o = stripped(
      {
        metadata: {
          name: 'a',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'x' },
        },
      },
      'v1',
      'ConfigMap',
    );
    assert.deepEqual(o, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', annotations: { keep: 'x' } },
    });
  });
});
