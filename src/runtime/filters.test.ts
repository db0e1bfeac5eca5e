// Table tests for the event filters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allOf,
  annotationOnly,
  anyOf,
  changed,
  deletionStarted,
  generationChanged,
  isResync,
  type KubeObject,
  not,
  statusOnly,
} from './filters.ts';

const base: KubeObject = {
  metadata: { name: 'r', namespace: 'ns', generation: 1, resourceVersion: '10', annotations: { a: '1' } },
  spec: { x: 1, list: [{ k: 'a', v: 1 }] },
  status: { phase: 'A' },
};
type Mutable = {
  metadata: {
    resourceVersion: string;
    generation: number;
    annotations: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec: { x: number; list: Array<{ k: string; v: number }> };
  status: { phase: string };
};
const edit = (f: (o: Mutable) => void): KubeObject => {
  const o = structuredClone(base) as unknown as Mutable;
  o.metadata.resourceVersion = '11';
  f(o);
  return o as KubeObject;
};

test('filters decide on old/new pairs', () => {
  const specChanged = changed<KubeObject>((o) => o.spec);
  const bumpGen = edit((o) => {
    o.metadata.generation = 2;
    o.spec.x = 2;
  });
  const ann = edit((o) => {
    o.metadata.annotations.a = '2';
  });
  const status = edit((o) => {
    o.status.phase = 'B';
  });
  const del = edit((o) => {
    o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  });
  const deep = edit((o) => {
    const first = o.spec.list[0];
    if (first) first.v = 2;
  });
  const cases: Array<[string, (o: KubeObject, n: KubeObject) => boolean, KubeObject, boolean]> = [
    ['spec changed: generation bump', specChanged, bumpGen, true],
    ['spec changed: deep list item', specChanged, deep, true],
    ['spec changed: annotation only', specChanged, ann, false],
    ['generationChanged: bump', generationChanged, bumpGen, true],
    ['generationChanged: status', generationChanged, status, false],
    ['deletionStarted: set', deletionStarted, del, true],
    ['deletionStarted: unrelated', deletionStarted, status, false],
    ['annotationOnly: annotation', annotationOnly, ann, true],
    ['annotationOnly: spec', annotationOnly, bumpGen, false],
    ['annotationOnly: status', annotationOnly, status, false],
    ['statusOnly: status', statusOnly, status, true],
    ['statusOnly: annotation', statusOnly, ann, false],
    ['statusOnly: spec', statusOnly, deep, false],
    ['isResync: same rv', isResync, base, true],
    ['isResync: new rv', isResync, ann, false],
    ['anyOf', anyOf(generationChanged, deletionStarted), del, true],
    ['anyOf none', anyOf(generationChanged, deletionStarted), ann, false],
    ['allOf', allOf(generationChanged, specChanged), bumpGen, true],
    ['allOf partial', allOf(generationChanged, specChanged), deep, false],
    ['not', not(annotationOnly), ann, false],
  ];
  for (const [name, f, next, want] of cases) assert.equal(f(base, next), want, name);
});
