// A Receiver's Ready as a table: suspended, its Secret missing, the Secret without key "token", unread,
// ready.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Receiver } from '../api/types.ts';
import { type ReceiverSecret, receiverStatusValue } from './status.ts';

test('receiverStatusValue: Ready=False naming the Secret while it or its key is missing', () => {
  const rcv = (suspend?: boolean): Receiver => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Receiver',
    metadata: { namespace: 'shop', name: 'github' },
    spec: { type: 'github', secretRef: { name: 'gh-hook' }, ...(suspend === undefined ? {} : { suspend }) },
  });
  const cases: ReadonlyArray<readonly [string, Receiver, ReceiverSecret, string, string, string]> = [
    [
      'suspended',
      rcv(true),
      { kind: 'missing' },
      'False',
      'Suspended',
      'spec.suspend is true: pushes get 503',
    ],
    [
      'no Secret',
      rcv(),
      { kind: 'missing' },
      'False',
      'SecretNotFound',
      'spec.secretRef: Secret "gh-hook" not found in namespace "shop"; pushes get 503 until it exists',
    ],
    [
      'no key token',
      rcv(),
      { kind: 'found', keys: ['tok'] },
      'False',
      'SecretKeyMissing',
      'spec.secretRef: Secret "gh-hook" has no key "token"; pushes get 503 until it has',
    ],
    [
      'ready',
      rcv(),
      { kind: 'found', keys: ['token'] },
      'True',
      'Ready',
      "github pushes to /hook/shop/github on convoy's HTTP API request a sync",
    ],
    [
      'the Secret could not be read',
      rcv(),
      { kind: 'unreadable', why: 'HTTP 403 Forbidden' },
      'Unknown',
      'SecretUnreadable',
      'spec.secretRef: Secret "gh-hook" could not be read (HTTP 403 Forbidden); retried',
    ],
  ];
  for (const [what, r, secret, status, reason, message] of cases) {
    const got = receiverStatusValue(r, secret);
    assert.deepEqual(got.condition, { status, reason, message }, what);
    assert.equal(got.webhookPath, '/hook/shop/github');
  }
});
