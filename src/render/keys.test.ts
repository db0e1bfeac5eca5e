// Table tests: object keys, their strings and sync waves.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import {
  apiVersionOf,
  describeKey,
  entryRef,
  groupOf,
  keyString,
  objectKey,
  parseWave,
  waveOf,
} from './keys.ts';
import type { Obj } from './types.ts';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string, wave?: string): Obj => ({
  apiVersion,
  kind,
  metadata: {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(wave === undefined ? {} : { annotations: { 'convoy.kumodo.io/sync-wave': wave } }),
  },
});

describe('groupOf', () => {
  for (const [apiVersion, group] of [
    ['v1', ''],
    ['apps/v1', 'apps'],
    ['convoy.kumodo.io/v1alpha1', 'convoy.kumodo.io'],
  ] as const) {
    it(`${apiVersion} → ${JSON.stringify(group)}`, () => assert.equal(groupOf(apiVersion), group));
  }
});

describe('objectKey / keyString / describeKey', () => {
  const table: [Obj, string, string][] = [
    [obj('apps/v1', 'Deployment', 'web', 'prod'), 'apps/Deployment/prod/web', 'Deployment.apps prod/web'],
    [obj('v1', 'ConfigMap', 'cfg', 'prod'), '/ConfigMap/prod/cfg', 'ConfigMap prod/cfg'],
    [obj('v1', 'Namespace', 'prod'), '/Namespace//prod', 'Namespace prod'],
  ];
  for (const [o, key, described] of table) {
    it(key, () => {
      assert.equal(keyString(objectKey(o)), key);
      assert.equal(describeKey(objectKey(o)), described);
    });
  }
  it('ignores the version', () => {
    assert.deepEqual(
      objectKey(obj('apps/v1', 'Deployment', 'a', 'n')),
      objectKey(obj('apps/v2', 'Deployment', 'a', 'n')),
    );
  });
});

describe('waves', () => {
  for (const [value, wave] of [
    ['0', 0],
    ['3', 3],
    ['-2', -2],
    ['+4', 4],
    ['007', 7],
    ['1.5', undefined],
    ['', undefined],
    [' 1', undefined],
    ['one', undefined],
    ['1e3', undefined],
  ] as const) {
    it(`parseWave(${JSON.stringify(value)}) = ${wave}`, () => assert.equal(parseWave(value), wave));
  }
  it('waveOf defaults to 0 and reads the annotation', () => {
    assert.equal(waveOf(obj('v1', 'ConfigMap', 'a', 'n')), 0);
    assert.equal(waveOf(obj('v1', 'ConfigMap', 'a', 'n', '-5')), -5);
  });
  it('waveOf throws on a value validation would have rejected', () => {
    assert.throws(() => waveOf(obj('v1', 'ConfigMap', 'a', 'n', 'x')), RangeError);
  });
});

test('apiVersionOf: the core group, a named group, and an entry without a recorded version', () => {
  assert.equal(apiVersionOf({ group: '', version: 'v1' }), 'v1');
  assert.equal(apiVersionOf({ group: 'apps', version: 'v1' }), 'apps/v1');
  assert.equal(apiVersionOf({ group: 'batch' }), 'batch/v1');
  assert.equal(apiVersionOf({ group: 'apps', version: '' }), 'apps/v1');
});

test('entryRef: cluster-scoped entries carry no namespace', () => {
  assert.deepEqual(entryRef({ group: '', version: 'v1', kind: 'Namespace', namespace: '', name: 'app' }), {
    apiVersion: 'v1',
    kind: 'Namespace',
    name: 'app',
  });
  assert.deepEqual(
    entryRef({ group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'a', name: 'w' }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'w',
      namespace: 'a',
    },
  );
});
