// Table test of the release controller's cache transform.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIELD_MANAGERS } from '../../../api/constants.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { ownManagedFieldsOnly } from './release-cache.ts';

const release = (managers?: readonly string[]): KubeObject => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: {
    name: 'r',
    namespace: 'ns',
    ...(managers === undefined
      ? {}
      : { managedFields: managers.map((manager) => ({ manager, operation: 'Apply', fieldsV1: {} })) }),
  },
});
const managersOf = (o: KubeObject) =>
  (o.metadata?.managedFields as { manager: string }[] | undefined)?.map((m) => m.manager);

test('ownManagedFieldsOnly keeps the controller entries and nothing else', () => {
  const own = FIELD_MANAGERS.controller;
  const rows: [string, readonly string[] | undefined, readonly string[] | undefined][] = [
    ['no managedFields', undefined, undefined],
    ['only the controller', [own], [own]],
    [
      'the observer, the API and the spec writer dropped',
      [FIELD_MANAGERS.observer, own, FIELD_MANAGERS.api, 'kubectl'],
      [own],
    ],
    ['none of ours', [FIELD_MANAGERS.drift], []],
  ];
  for (const [name, before, after] of rows)
    assert.deepEqual(managersOf(ownManagedFieldsOnly(release(before))), after, name);
  const unchanged = release([own]);
  assert.equal(ownManagedFieldsOnly(unchanged), unchanged, 'nothing to drop: the same object');
});
