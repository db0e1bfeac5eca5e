// Table tests: object checks, targetNamespace, duplicates and the hook split.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleRender } from './assemble.ts';
import type { Manifest, Obj } from './types.ts';

const m = (object: Record<string, unknown>, file = 'a.yaml', document = 1): Manifest => ({
  object,
  origin: { file, document },
});
const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
});
const job = (name: string, annotations: Record<string, string>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'n', annotations },
});

function problems(manifests: Manifest[], options = {}): string[] {
  const r = assembleRender(manifests, options);
  assert.equal(r.ok, false, 'expected problems');
  return r.ok ? [] : r.problems.map((p) => `${p.where}: ${p.message}`);
}

describe('assembleRender: objects', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    [
      'missing apiVersion',
      { kind: 'ConfigMap', metadata: { name: 'a' } },
      'web.yaml document 2: apiVersion is missing',
    ],
    ['missing kind', { apiVersion: 'v1', metadata: { name: 'a' } }, 'web.yaml document 2: kind is missing'],
    [
      'missing metadata',
      { apiVersion: 'v1', kind: 'ConfigMap' },
      'web.yaml document 2: ConfigMap: metadata is missing',
    ],
    [
      'missing name',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
      'web.yaml document 2: ConfigMap: metadata.name is missing',
    ],
    [
      'generateName',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'a-' } },
      'web.yaml document 2: ConfigMap: metadata.generateName is not supported, set metadata.name',
    ],
    ['a slash in the name', cm('a/b'), 'web.yaml document 2: ConfigMap: metadata.name "a/b" is invalid'],
    [
      'a number as annotation value',
      cm('a', { annotations: { 'convoy.kumodo.io/sync-wave': 1 } }),
      'web.yaml document 2: ConfigMap a: metadata.annotations.convoy.kumodo.io/sync-wave must be a string, not 1 (quote it)',
    ],
    [
      'labels not a map',
      cm('a', { labels: ['x'] }),
      'web.yaml document 2: ConfigMap a: metadata.labels must be a map',
    ],
  ];
  for (const [name, object, want] of bad) {
    it(`reports ${name}`, () => assert.deepEqual(problems([m(object, 'web.yaml', 2)]), [want]));
  }

  it('reports a duplicate naming both files', () => {
    assert.deepEqual(
      problems([m(cm('x', { namespace: 'n' }), 'a.yaml', 1), m(cm('x', { namespace: 'n' }), 'b.yaml', 3)]),
      ['ConfigMap n/x: defined twice, in a.yaml document 1 and in b.yaml document 3'],
    );
  });

  it('finds a duplicate that only targetNamespace makes', () => {
    const got = problems([m(cm('x', { namespace: 'prod' }), 'a.yaml'), m(cm('x'), 'b.yaml')], {
      targetNamespace: 'prod',
    });
    assert.deepEqual(got, ['ConfigMap prod/x: defined twice, in a.yaml document 1 and in b.yaml document 1']);
  });

  it('a different version of the same object is a duplicate', () => {
    const a = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', namespace: 'n' },
    };
    const b = { ...a, apiVersion: 'autoscaling/v2' };
    assert.equal(problems([m(a), m(b, 'b.yaml')]).length, 1);
  });

  it('collects problems from every object', () => {
    assert.equal(problems([m({ kind: 'A' }), m({ kind: 'B' }, 'b.yaml'), m(cm('ok'))]).length, 2);
  });
});

describe('assembleRender: targetNamespace', () => {
  const objects = (manifests: Manifest[], options = {}): Obj[] => {
    const r = assembleRender(manifests, options);
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
    return [...r.value.objects];
  };
  it('sets it on namespaced objects that have none, and keeps theirs', () => {
    const got = objects(
      [
        m(cm('a')),
        m(cm('b', { namespace: 'own' })),
        m(cm('c', { namespace: null })),
        m(cm('d', { namespace: '' })),
      ],
      {
        targetNamespace: 'prod',
      },
    );
    assert.deepEqual(
      got.map((o) => [o.metadata.name, o.metadata.namespace]),
      [
        ['b', 'own'],
        ['a', 'prod'],
        ['c', 'prod'],
        ['d', 'prod'],
      ],
    );
  });
  it('leaves cluster-scoped objects without a namespace, and drops one they name', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', namespace: 'x' } };
    const cr = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } };
    const got = objects([m(ns), m(cr)], { targetNamespace: 'prod' });
    assert.deepEqual(
      got.map((o) => [o.kind, 'namespace' in o.metadata]),
      [
        ['Namespace', false],
        ['ClusterRole', false],
      ],
    );
  });
  it('asks the caller about kinds first', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    const got = objects([m(widget)], { targetNamespace: 'prod', isNamespaced: () => false });
    assert.equal(got[0]?.metadata.namespace, undefined);
    const got2 = objects([m(widget)], { targetNamespace: 'prod', isNamespaced: () => undefined });
    assert.equal(got2[0]?.metadata.namespace, 'prod');
  });
  it('does not change the input objects', () => {
    const input = cm('a');
    objects([m(input)], { targetNamespace: 'prod' });
    assert.deepEqual(input, cm('a'));
  });
  // The Release namespace as default is renderRelease's (release.test.ts); assembleRender only applies
  // what it is given, so `convoy render DIR` without --target-namespace keeps objects as written.
  it('without targetNamespace, an object with none keeps none', () => {
    assert.equal(objects([m(cm('a'))])[0]?.metadata.namespace, undefined);
  });
});

describe('assembleRender: hooks', () => {
  it('splits hooks from objects, each in canonical order', () => {
    const r = assembleRender([
      m(job('post', { 'convoy.kumodo.io/hook': 'PostSync' })),
      m(cm('b', { namespace: 'n' })),
      m(job('pre', { 'convoy.kumodo.io/hook': 'PreSync' })),
      m(job('plain', {})),
      m(cm('a', { namespace: 'n' })),
    ]);
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.hooks.map((o) => o.metadata.name),
      ['post', 'pre'],
    );
    assert.deepEqual(
      r.value.objects.map((o) => o.metadata.name),
      ['a', 'b', 'plain'],
    );
  });
  it('names the object and its file for a bad hook', () => {
    const bad = { ...cm('c', { namespace: 'n', annotations: { 'convoy.kumodo.io/hook': 'PreSync' } }) };
    assert.deepEqual(problems([m(bad, 'hooks.yaml', 4)]), [
      'ConfigMap n/c (hooks.yaml document 4): convoy.kumodo.io/hook is only allowed on a Job (batch) or a Pod, not on a ConfigMap',
    ]);
  });
  it('two hooks of different kinds may not share a name', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'notify', namespace: 'n', annotations: { 'convoy.kumodo.io/hook': 'PostSync' } },
    };
    const jobHook = { ...job('notify', { 'convoy.kumodo.io/hook': 'PreSync' }) };
    const found = problems([m(jobHook, 'a.yaml'), m(pod, 'b.yaml')]);
    assert.equal(found.length, 1);
    assert.match(
      found[0] ?? '',
      /hook name notify is also used by the hook in a\.yaml.*unique within a release/,
    );
  });
  it('a hook and an object with the same key are duplicates', () => {
    assert.equal(
      problems([m(job('j', { 'convoy.kumodo.io/hook': 'PreSync' })), m(job('j', {}), 'b.yaml')]).length,
      1,
    );
  });
});
