import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toCelObject } from './value.ts';

test('toCelObject: integers become bigint, others keep their type', () => {
  const { value } = toCelObject({
    spec: { replicas: 3, ratio: 0.5, big: 2 ** 60, tags: ['a', 'b', 'c'], none: null, gone: undefined },
    metadata: { creationTimestamp: new Date('2024-01-02T03:04:05.000Z'), ['__proto__']: 'x' },
  });
  const spec = value.get('spec') as Map<string, unknown>;
  assert.equal(spec.get('replicas'), 3n);
  assert.equal(spec.get('ratio'), 0.5);
  assert.equal(spec.get('big'), 2 ** 60, 'unsafe integers stay double (they lost precision in JSON already)');
  assert.deepEqual(spec.get('tags'), ['a', 'b', 'c']);
  assert.equal(spec.get('none'), null);
  assert.equal(spec.has('gone'), false);
  const md = value.get('metadata') as Map<string, unknown>;
  assert.equal(md.get('creationTimestamp'), '2024-01-02T03:04:05Z');
  assert.equal(md.get('__proto__'), 'x');
});
