// Table tests of planReads (which groups of a Release's objects are read with one LIST, which by GET) and
// of readLive's paging (every page of a LIST followed, each of LIST_PAGE items at most).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeClient, type ListOptions } from '../kube/client.ts';
import { LIST_PAGE, type LiveRef, planReads, type ReadPlan, readLive } from './live-reads.ts';

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

/**
 * A client that records the pages readLive asks for and serves `names` from a list by offset (the
 * continue token is the offset); a name it does not serve is read by GET and found absent.
 */
function pagedClient(names: readonly string[]) {
  const pages: { limit: number | undefined; continue: string | undefined }[] = [];
  const gets: string[] = [];
  const client = Object.create(KubeClient.prototype) as KubeClient;
  Object.assign(client, {
    list: async () => assert.fail('an unpaged LIST'),
    listPage: async (_ref: unknown, opts: ListOptions) => {
      pages.push({ limit: opts.limit, continue: opts.continue });
      const from = Number(opts.continue ?? 0);
      const to = from + (opts.limit ?? names.length);
      return {
        items: names.slice(from, to).map((name) => ({ metadata: { name, namespace: 'a' } })),
        continue: to < names.length ? String(to) : undefined,
      };
    },
    get: async (ref: { name: string }) => {
      gets.push(ref.name);
      return undefined;
    },
  });
  return { client, pages, gets };
}

const pagingCases: readonly {
  readonly name: string;
  /** ConfigMaps recorded (c0 …) and how many of them the LIST serves. */
  readonly entries: number;
  readonly served: number;
  readonly pageSize: number | undefined;
  /** The continue token of each page asked for. */
  readonly pages: readonly (string | undefined)[];
  readonly gets: number;
}[] = [
  { name: 'one page when all fit', entries: 30, served: 30, pageSize: 50, pages: [undefined], gets: 0 },
  { name: 'exactly one full page', entries: 50, served: 50, pageSize: 50, pages: [undefined], gets: 0 },
  {
    name: 'the rest on a second page',
    entries: 51,
    served: 51,
    pageSize: 50,
    pages: [undefined, '50'],
    gets: 0,
  },
  {
    name: '10,000 objects in pages of LIST_PAGE',
    entries: 10_000,
    served: 10_000,
    pageSize: undefined,
    pages: Array.from({ length: 10_000 / LIST_PAGE }, (_, i) =>
      i === 0 ? undefined : String(i * LIST_PAGE),
    ),
    gets: 0,
  },
  {
    name: 'an entry no page holds (its label removed) is read by GET',
    entries: 120,
    served: 100,
    pageSize: 50,
    pages: [undefined, '50'],
    gets: 20,
  },
];

for (const c of pagingCases) {
  test(`readLive pages its LIST: ${c.name}`, async () => {
    const names = Array.from({ length: c.entries }, (_, i) => `c${i}`);
    const { client, pages, gets } = pagedClient(names.slice(0, c.served));
    const out = await readLive(
      client,
      names.map((n) => cm(n)),
      { releaseLabel: 'a.app', ...(c.pageSize === undefined ? {} : { pageSize: c.pageSize }) },
    );
    assert.deepEqual(
      pages.map((p) => p.continue),
      c.pages,
    );
    assert.ok(pages.every((p) => p.limit === (c.pageSize ?? LIST_PAGE)));
    assert.equal(gets.length, c.gets);
    assert.equal(out.kind, 'read');
    const reads = out.kind === 'read' ? out.reads : [];
    assert.equal(reads.filter((r) => r.kind === 'found').length, c.served);
    assert.equal(reads.filter((r) => r.kind === 'absent').length, c.entries - c.served);
    const first = reads[0];
    assert.equal(first?.kind === 'found' && first.object.kind, 'ConfigMap', 'LIST items get their kind');
  });
}
