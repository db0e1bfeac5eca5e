import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  comparable,
  diffLineStyle,
  diffSides,
  leftRenderLine,
  pruneCandidates,
  unifiedDiff,
  yamlOf,
} from './diff.ts';

const L = { before: 'live', after: 'render' };

test('equal texts give no diff', () => {
  assert.deepEqual(unifiedDiff('a\nb\n', 'a\nb\n', L), []);
  assert.deepEqual(unifiedDiff('', '', L), []);
});

test('a changed line in the middle, with three lines of context', () => {
  const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9'].join('\n');
  const after = ['1', '2', '3', '4', 'five', '6', '7', '8', '9'].join('\n');
  assert.deepEqual(unifiedDiff(before, after, L), [
    '--- live',
    '+++ render',
    '@@ -2,7 +2,7 @@',
    ' 2',
    ' 3',
    ' 4',
    '-5',
    '+five',
    ' 6',
    ' 7',
    ' 8',
  ]);
});

test('changes far apart make two hunks; close ones share one', () => {
  const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const b = a.map((l, i) => (i === 1 || i === 18 ? `${l}x` : l));
  const hunks = unifiedDiff(a.join('\n'), b.join('\n'), L).filter((l) => l.startsWith('@@'));
  assert.deepEqual(hunks, ['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
  const c = a.map((l, i) => (i === 5 || i === 11 ? `${l}x` : l));
  assert.equal(unifiedDiff(a.join('\n'), c.join('\n'), L).filter((l) => l.startsWith('@@')).length, 1);
});

test('a new object is all additions from line 0', () => {
  assert.deepEqual(unifiedDiff('', 'a: 1\nb: 2\n', { before: 'live (does not exist)', after: 'render' }), [
    '--- live (does not exist)',
    '+++ render',
    '@@ -0,0 +1,2 @@',
    '+a: 1',
    '+b: 2',
  ]);
});

test('comparable drops server bookkeeping and status, keeps content', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'x',
      uid: 'u',
      resourceVersion: '7',
      generation: 2,
      creationTimestamp: 't',
      managedFields: [{}],
      labels: { a: 'b' },
    },
    data: { k: 'v' },
    status: { phase: 'Active' },
  };
  assert.deepEqual(comparable(obj), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', labels: { a: 'b' } },
    data: { k: 'v' },
  });
  assert.equal(obj.metadata.uid, 'u', 'the input is not modified');
  assert.equal(comparable(undefined), undefined);
  assert.equal(yamlOf(undefined), '');
  assert.equal(yamlOf({ a: 1 }), 'a: 1\n');
});

test('pruneCandidates: entries not in the render, unless prune is off', () => {
  const e = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'ns', name });
  const entries = [e('a'), e('b'), { ...e('c'), group: 'apps', kind: 'Deployment' }];
  const keys = [e('a'), e('c')];
  assert.deepEqual(pruneCandidates(entries, keys, true), {
    pruned: [e('b'), { ...e('c'), group: 'apps', kind: 'Deployment' }],
    kept: [],
  });
  assert.deepEqual(pruneCandidates(entries, keys, false), {
    pruned: [],
    kept: [e('b'), { ...e('c'), group: 'apps', kind: 'Deployment' }],
  });
  assert.deepEqual(pruneCandidates(entries, entries, true), { pruned: [], kept: [] });
});

test('diff line colours', () => {
  assert.equal(diffLineStyle('--- live'), 'bold');
  assert.equal(diffLineStyle('+++ render'), 'bold');
  assert.equal(diffLineStyle('@@ -1 +1 @@'), 'bold');
  assert.equal(diffLineStyle('-old'), 'red');
  assert.equal(diffLineStyle('+new'), 'green');
  assert.equal(diffLineStyle(' same'), undefined);
});

test('leftRenderLine: kept by its annotation, a CRD kept without the opt-in, a CRD prune says what goes with it', () => {
  const crd = 'apiextensions.k8s.io/CustomResourceDefinition widgets.example.com';
  assert.deepEqual(leftRenderLine('ConfigMap ns/a', false, undefined, false), {
    prune: true,
    text: 'prune  ConfigMap ns/a (left the render)',
  });
  assert.deepEqual(leftRenderLine('ConfigMap ns/a', false, 'helm.sh/resource-policy: keep', false), {
    prune: false,
    text: 'keep   ConfigMap ns/a (left the render; helm.sh/resource-policy: keep)',
  });
  assert.equal(leftRenderLine(crd, true, undefined, false).prune, false);
  assert.match(
    leftRenderLine(crd, true, undefined, false).text,
    /deleted only with syncPolicy\.pruneCRDs: true/,
  );
  const pruned = leftRenderLine(crd, true, undefined, true);
  assert.equal(pruned.prune, true);
  assert.match(pruned.text, /deletes it and every custom resource of its kind in the cluster/);
  assert.equal(leftRenderLine(crd, true, 'helm.sh/resource-policy: keep', true).prune, false);
});

test('diffSides: a new object as convoy sends it, an existing one as the dry run leaves it', () => {
  const sent = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } };
  // What a dry-run create answers: the server's finalizers and status, none of them a change anyone wrote.
  const merged = {
    ...sent,
    metadata: { name: 'shop', uid: 'u', creationTimestamp: 't' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
  assert.deepEqual(diffSides(undefined, merged, sent), { before: undefined, after: sent });
  const live = { ...merged, metadata: { ...merged.metadata, labels: { team: 'a' } } };
  const changed = { ...merged, metadata: { ...merged.metadata, labels: { team: 'b' } } };
  assert.deepEqual(diffSides(live, changed, sent), {
    before: {
      ...sent,
      metadata: { name: 'shop', labels: { team: 'a' } },
      spec: { finalizers: ['kubernetes'] },
    },
    after: {
      ...sent,
      metadata: { name: 'shop', labels: { team: 'b' } },
      spec: { finalizers: ['kubernetes'] },
    },
  });
});
