// Table tests of planReads: which groups of a Release's objects are read with one LIST, which by GET.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LiveRef, planReads, type ReadPlan } from './live-reads.ts';

const cm = (name: string, namespace = 'a'): LiveRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name,
});
const many = (n: number, f: (i: number) => LiveRef) => Array.from({ length: n }, (_, i) => f(i));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

const cases: readonly {
  readonly name: string;
  readonly refs: readonly LiveRef[];
  readonly threshold: number;
  readonly want: ReadPlan;
}[] = [
  { name: 'nothing to read', refs: [], threshold: 3, want: { lists: [], gets: [] } },
  {
    name: 'a group below the threshold is read by GET',
    refs: many(2, (i) => cm(`c${i}`)),
    threshold: 3,
    want: { lists: [], gets: [0, 1] },
  },
  {
    name: 'a group at the threshold is listed',
    refs: many(3, (i) => cm(`c${i}`)),
    threshold: 3,
    want: { lists: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', entries: [0, 1, 2] }], gets: [] },
  },
  {
    name: 'threshold 0 never lists',
    refs: many(50, (i) => cm(`c${i}`)),
    threshold: 0,
    want: { lists: [], gets: range(0, 50) },
  },
  {
    name: 'the same kind in two namespaces is two groups',
    refs: [...many(3, (i) => cm(`c${i}`, 'a')), ...many(2, (i) => cm(`c${i}`, 'b'))],
    threshold: 3,
    want: {
      lists: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', entries: [0, 1, 2] }],
      gets: [3, 4],
    },
  },
  {
    name: 'two versions of one kind are two groups (a LIST serves one version)',
    refs: [
      { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', namespace: 'a', name: 'h0' },
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', namespace: 'a', name: 'h1' },
    ],
    threshold: 2,
    want: { lists: [], gets: [0, 1] },
  },
  {
    name: 'interleaved kinds keep their indices',
    refs: [
      cm('c0'),
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'a', name: 'd0' },
      cm('c1'),
      { apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 's0' },
    ],
    threshold: 2,
    want: { lists: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', entries: [0, 2] }], gets: [1, 3] },
  },
  {
    name: 'cluster-scoped objects are listed without a namespace ("" and absent are the same)',
    refs: [
      { apiVersion: 'v1', kind: 'Namespace', name: 'n0' },
      { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'n1' },
    ],
    threshold: 2,
    want: { lists: [{ apiVersion: 'v1', kind: 'Namespace', entries: [0, 1] }], gets: [] },
  },
];

for (const c of cases) {
  test(`planReads: ${c.name}`, () => {
    assert.deepEqual(planReads(c.refs, c.threshold), c.want);
  });
}
