// A live object as the page shows it: managedFields folded away, Secret values masked, Events newest first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveObjectView } from './live-object.ts';

test('liveObjectView: no managedFields, Secret values masked, Events newest first', () => {
  const v = liveObjectView(
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop', managedFields: [{ manager: 'convoy' }] },
      data: { password: 'aHVudGVyMg==' },
    },
    [
      { type: 'Normal', reason: 'Old', message: 'first', lastTimestamp: '2030-01-01T00:00:00Z' },
      { type: 'Warning', reason: 'New', message: 'second', count: 3, eventTime: '2030-01-01T00:05:00Z' },
    ],
  );
  assert.doesNotMatch(v.yaml, /managedFields|convoy/);
  assert.doesNotMatch(v.yaml, /aHVudGVyMg==/);
  assert.match(v.yaml, /password: "\*\*\*"|password: '\*\*\*'|password: \*\*\*/);
  assert.deepEqual(
    v.events.map((e) => [e.reason, e.count]),
    [
      ['New', 3],
      ['Old', 1],
    ],
  );
});
