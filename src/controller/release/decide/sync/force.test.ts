import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forcedSyncPending } from './force.ts';

const K = 'convoy.kumodo.io/force-sync-at';
const cases: [
  string,
  Record<string, string> | undefined,
  { lastHandledForceSyncAt?: string } | undefined,
  boolean,
][] = [
  ['no annotations', undefined, undefined, false],
  ['no force annotation', { 'convoy.kumodo.io/sync-requested-at': 't1' }, {}, false],
  ['empty value', { [K]: '' }, {}, false],
  ['set, never handled', { [K]: 't1' }, {}, true],
  ['set, no status at all', { [K]: 't1' }, undefined, true],
  ['set, handled', { [K]: 't1' }, { lastHandledForceSyncAt: 't1' }, false],
  ['set again after an earlier one was handled', { [K]: 't2' }, { lastHandledForceSyncAt: 't1' }, true],
];
for (const [name, ann, status, want] of cases) {
  test(`forcedSyncPending: ${name}`, () => assert.equal(forcedSyncPending(ann, status), want));
}
