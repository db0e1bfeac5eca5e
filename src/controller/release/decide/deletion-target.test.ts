// stepNeedsTarget and decideUnreachable, table by table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideUnreachable, stepNeedsTarget, type UnreachableInput } from './deletion-target.ts';
import type { DeletionStep } from './hooks/index.ts';

const ref = { kind: 'Job', namespace: 'ns', name: 'w' } as never;

describe('stepNeedsTarget', () => {
  const rows: [string, DeletionStep, 'Delete' | 'Orphan', boolean][] = [
    [
      'finalize with nothing to clean up (nothing was ever applied)',
      { kind: 'finalize', cleanup: [] },
      'Delete',
      false,
    ],
    ['finalize that deletes hook workloads', { kind: 'finalize', cleanup: [ref] }, 'Delete', true],
    ['prune under Delete', { kind: 'prune', cleanup: [] }, 'Delete', true],
    ['prune under Orphan, nothing to clean up', { kind: 'prune', cleanup: [] }, 'Orphan', false],
    ['prune under Orphan with hook workloads', { kind: 'prune', cleanup: [ref] }, 'Orphan', true],
    ['arming delete hooks', { kind: 'armHooks', phase: 'PreDelete', hooks: [] }, 'Delete', true],
    [
      'waiting for hooks, nothing to clean up',
      { kind: 'waitHooks', phase: 'PreDelete', running: ['a'], cleanup: [] },
      'Delete',
      false,
    ],
    [
      'blocked, with cleanup',
      { kind: 'blocked', phase: 'PostDelete', hook: 'a', message: 'm', cleanup: [ref] },
      'Delete',
      true,
    ],
  ];
  for (const [name, step, policy, want] of rows)
    it(name, () => assert.equal(stepNeedsTarget(step, policy), want));
});

describe('decideUnreachable', () => {
  const base: UnreachableInput = {
    orphanRequested: false,
    namespaceTerminating: false,
    failure: { reason: 'ClusterNotFound', message: 'Cluster "edge" not found in namespace "team"' },
    target: 'edge',
    objects: 3,
    hookWorkloads: 0,
  };
  const rows: [string, Partial<UnreachableInput>, string, RegExp][] = [
    [
      'a missing Cluster: wait, naming it and the way out',
      {},
      'wait:ClusterNotFound',
      /^deletion waits: Cluster "edge" not found in namespace "team"; 3 objects cannot be cleaned up until it can reach Cluster "edge"\. To give up and leave them, annotate the Release convoy\.kumodo\.io\/deletion-policy=orphan$/,
    ],
    [
      'an unreachable Cluster: wait with its reason',
      {
        failure: {
          reason: 'ClusterNotReady',
          message: 'Cluster "edge" is not Ready (Unreachable): connect ECONNREFUSED',
        },
      },
      'wait:ClusterNotReady',
      /ECONNREFUSED; 3 objects/,
    ],
    [
      'a forbidden prune on the local cluster',
      {
        target: 'local',
        objects: 1,
        failure: { reason: 'PruneFailed', message: 'deleting ConfigMap ns/a: forbidden' },
      },
      'wait:PruneFailed',
      /1 object cannot be cleaned up until it can reach this cluster/,
    ],
    [
      'the annotation: orphan whatever the failure',
      { orphanRequested: true, failure: { reason: 'ClusterNotReady', message: 'timeout' } },
      'orphan',
      /^deletion left 3 objects on Cluster "edge" \(annotation convoy\.kumodo\.io\/deletion-policy=orphan\): timeout$/,
    ],
    [
      'hook workloads are counted too',
      { orphanRequested: true, hookWorkloads: 2 },
      'orphan',
      /3 objects and 2 hook workloads/,
    ],
    [
      'the namespace is going and the Cluster is gone: orphan',
      { namespaceTerminating: true },
      'orphan',
      /the namespace is being deleted and the Cluster is gone with it/,
    ],
    [
      'the namespace is going but the Cluster is there, unreachable: wait',
      { namespaceTerminating: true, failure: { reason: 'ClusterNotReady', message: 'x' } },
      'wait:ClusterNotReady',
      /deletion waits/,
    ],
  ];
  for (const [name, over, want, message] of rows) {
    it(name, () => {
      const d = decideUnreachable({ ...base, ...over });
      assert.equal(d.kind === 'wait' ? `wait:${d.reason}` : d.kind, want);
      assert.match(d.message, message);
    });
  }
});
