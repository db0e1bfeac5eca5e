import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_HOOK_TIMEOUT_MS,
  formatGoDuration,
  hookDefs,
  hookNameConflicts,
  hookWorkloadName,
  MAX_WORKLOAD_NAME,
  shortRenderRef,
} from './defs.ts';
import { hookObj, R1 } from './fixtures.ts';

describe('hookDefs', () => {
  it('applies the defaults: 5m timeout, BeforeHookCreation', () => {
    const [d] = hookDefs([hookObj('migrate', 'PreSync')]);
    assert.equal(d?.timeoutMs, DEFAULT_HOOK_TIMEOUT_MS);
    assert.deepEqual(d?.deletePolicies, ['BeforeHookCreation']);
    assert.equal(d?.kind, 'Job');
    assert.equal(d?.namespace, 'app');
  });
  it('reads timeout and policies from the annotations', () => {
    const [d] = hookDefs([
      hookObj('smoke', 'PostSync', { kind: 'Pod', timeout: '90s', policy: 'HookSucceeded,HookFailed' }),
    ]);
    assert.equal(d?.timeoutMs, 90_000);
    assert.deepEqual(d?.deletePolicies, ['HookSucceeded', 'HookFailed']);
    assert.equal(d?.kind, 'Pod');
  });
  it('skips objects that are not hooks', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
    assert.deepEqual(hookDefs([cm]), []);
  });
});

describe('hookNameConflicts', () => {
  const table: [string, Parameters<typeof hookObj>[], number][] = [
    [
      'unique names',
      [
        ['a', 'PreSync'],
        ['b', 'PostSync'],
      ],
      0,
    ],
    [
      'a Job and a Pod of one name',
      [
        ['a', 'PreSync'],
        ['a', 'PostSync', { kind: 'Pod' }],
      ],
      1,
    ],
    [
      'two namespaces, one name',
      [
        ['a', 'PreSync', { namespace: 'x' }],
        ['a', 'PreSync', { namespace: 'y' }],
      ],
      1,
    ],
  ];
  for (const [name, hooks, want] of table) {
    it(name, () => {
      const problems = hookNameConflicts(hookDefs(hooks.map((h) => hookObj(...h))));
      assert.equal(problems.length, want, problems.join('\n'));
      if (want > 0) assert.match(problems[0] ?? '', /hook name a is used by 2 hooks/);
    });
  }
});

describe('hookWorkloadName', () => {
  it('appends 10 hex characters of the renderRef', () => {
    assert.equal(shortRenderRef(R1), 'a1a1a1a1a1');
    assert.equal(hookWorkloadName('migrate', R1), 'migrate-a1a1a1a1a1');
  });
  it('keeps a name that just fits', () => {
    const name = 'x'.repeat(MAX_WORKLOAD_NAME - 11);
    assert.equal(hookWorkloadName(name, R1), `${name}-a1a1a1a1a1`);
    assert.equal(hookWorkloadName(name, R1).length, MAX_WORKLOAD_NAME);
  });
  it('shortens long names to 63 characters, with a hash telling names of one prefix apart', () => {
    const a = `${'db-migration-'.repeat(6)}first`;
    const b = `${'db-migration-'.repeat(6)}second`;
    const na = hookWorkloadName(a, R1);
    const nb = hookWorkloadName(b, R1);
    assert.equal(na.length <= MAX_WORKLOAD_NAME, true, na);
    assert.equal(nb.length <= MAX_WORKLOAD_NAME, true, nb);
    assert.notEqual(na, nb);
    assert.match(na, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(na.endsWith('-a1a1a1a1a1'));
  });
  it('differs between renders', () => {
    assert.notEqual(hookWorkloadName('m', R1), hookWorkloadName('m', `sha256:${'c'.repeat(64)}`));
  });
});

describe('formatGoDuration', () => {
  const table: [number, string][] = [
    [300_000, '5m'],
    [5_400_000, '1h30m'],
    [3_605_000, '1h5s'],
    [90_000, '1m30s'],
    [1500, '1500ms'],
    [0.4, '1ms'],
    [0, '0'],
  ];
  for (const [ms, want] of table) it(`${ms} ms → ${want}`, () => assert.equal(formatGoDuration(ms), want));
});
