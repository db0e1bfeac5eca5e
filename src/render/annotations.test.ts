// Table tests: convoy annotations on objects (waves, prune, hooks).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAnnotations, hookOf } from './annotations.ts';
import type { ObjectKey } from './types.ts';

const job: ObjectKey = { group: 'batch', kind: 'Job', namespace: 'n', name: 'migrate' };
const pod: ObjectKey = { group: '', kind: 'Pod', namespace: 'n', name: 'smoke' };
const deploy: ObjectKey = { group: 'apps', kind: 'Deployment', namespace: 'n', name: 'web' };
const fakeJob: ObjectKey = { group: 'example.com', kind: 'Job', namespace: 'n', name: 'x' };

const A = 'convoy.kumodo.io/';

describe('checkAnnotations', () => {
  const table: [string, ObjectKey, Record<string, string>, RegExp | undefined][] = [
    ['no annotations', deploy, {}, undefined],
    ['a wave', deploy, { [`${A}sync-wave`]: '-3' }, undefined],
    ['a bad wave', deploy, { [`${A}sync-wave`]: 'first' }, /sync-wave must be an integer/],
    ['a fractional wave', deploy, { [`${A}sync-wave`]: '1.5' }, /sync-wave must be an integer/],
    ['prune disabled', deploy, { [`${A}prune`]: 'disabled' }, undefined],
    ['prune false', deploy, { [`${A}prune`]: 'false' }, /prune may only be "disabled"/],
    ['a Job hook', job, { [`${A}hook`]: 'PreSync' }, undefined],
    ['a Pod hook', pod, { [`${A}hook`]: 'PostDelete' }, undefined],
    [
      'a hook on a Deployment',
      deploy,
      { [`${A}hook`]: 'PreSync' },
      /only allowed on a Job \(batch\) or a Pod, not on a Deployment/,
    ],
    [
      'a hook on a Job of another group',
      fakeJob,
      { [`${A}hook`]: 'PreSync' },
      /only allowed on a Job \(batch\)/,
    ],
    [
      'an unknown phase',
      job,
      { [`${A}hook`]: 'PreApply' },
      /hook must be one of PreSync, PostSync, SyncFail, PreDelete, PostDelete/,
    ],
    ['two phases', job, { [`${A}hook`]: 'PreSync,PostSync' }, /hook must be one of/],
    ['a timeout', job, { [`${A}hook`]: 'PreSync', [`${A}hook-timeout`]: '1h30m' }, undefined],
    [
      'a bad timeout',
      job,
      { [`${A}hook`]: 'PreSync', [`${A}hook-timeout`]: '5 minutes' },
      /hook-timeout must be a positive duration/,
    ],
    [
      'a zero timeout',
      job,
      { [`${A}hook`]: 'PreSync', [`${A}hook-timeout`]: '0' },
      /hook-timeout must be a positive/,
    ],
    [
      'a negative timeout',
      job,
      { [`${A}hook`]: 'PreSync', [`${A}hook-timeout`]: '-5m' },
      /hook-timeout must be a positive/,
    ],
    [
      'a timeout without a hook',
      job,
      { [`${A}hook-timeout`]: '5m' },
      /hook-timeout is set but convoy.kumodo.io\/hook is not/,
    ],
    [
      'delete policies',
      job,
      { [`${A}hook`]: 'PostSync', [`${A}hook-delete-policy`]: 'BeforeHookCreation, HookSucceeded' },
      undefined,
    ],
    [
      'a bad delete policy',
      job,
      { [`${A}hook`]: 'PostSync', [`${A}hook-delete-policy`]: 'Always' },
      /hook-delete-policy must be a comma-separated list/,
    ],
    [
      'an empty delete policy',
      job,
      { [`${A}hook`]: 'PostSync', [`${A}hook-delete-policy`]: ' , ' },
      /hook-delete-policy must be/,
    ],
    [
      'a delete policy without a hook',
      job,
      { [`${A}hook-delete-policy`]: 'HookFailed' },
      /hook-delete-policy is set but/,
    ],
  ];
  for (const [name, key, annotations, want] of table) {
    it(name, () => {
      const problems = checkAnnotations(key, annotations);
      if (want === undefined) assert.deepEqual(problems, []);
      else
        assert.ok(
          problems.some((p) => want.test(p)),
          problems.join('\n') || '(no problem reported)',
        );
    });
  }
});

describe('hookOf', () => {
  it('is undefined for an ordinary object', () => {
    assert.equal(hookOf(undefined), undefined);
    assert.equal(hookOf({ [`${A}sync-wave`]: '1' }), undefined);
  });
  it('reads phase, timeout and delete policies', () => {
    assert.deepEqual(
      hookOf({
        [`${A}hook`]: 'PreSync',
        [`${A}hook-timeout`]: '90s',
        [`${A}hook-delete-policy`]: 'HookSucceeded,HookFailed',
      }),
      {
        phase: 'PreSync',
        timeoutMs: 90_000,
        deletePolicies: ['HookSucceeded', 'HookFailed'],
        weight: 0,
      },
    );
  });
  it('reads the weight, a signed integer as Helm writes it', () => {
    const rows: [string, number][] = [
      ['-5', -5],
      ['10', 10],
      [' 3 ', 3],
      ['+2', 2],
    ];
    for (const [w, want] of rows)
      assert.equal(hookOf({ [`${A}hook`]: 'PreSync', [`${A}hook-weight`]: w })?.weight, want, w);
  });
});

describe('hook-weight is checked', () => {
  const key = { group: 'batch', version: 'v1', kind: 'Job', namespace: 'ns', name: 'j' };
  it('refuses what is not an integer, and a weight without a hook', () => {
    for (const bad of ['1.5', 'heavy', ''])
      assert.match(
        checkAnnotations(key, { [`${A}hook`]: 'PreSync', [`${A}hook-weight`]: bad }).join('\n'),
        /hook-weight must be an integer/,
        bad,
      );
    assert.match(checkAnnotations(key, { [`${A}hook-weight`]: '1' }).join('\n'), /hook-weight is set but/);
    assert.deepEqual(checkAnnotations(key, { [`${A}hook`]: 'PreSync', [`${A}hook-weight`]: '-3' }), []);
  });
});
