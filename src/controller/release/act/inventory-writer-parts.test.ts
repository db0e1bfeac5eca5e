// The InventoryWriter over parts (docs/design.md#inventory-parts), on an injected in-memory client that
// records every write: keys fill parts in order, a write touches only the parts that change, recording
// moves a key from pending to entries inside its own part, removal empties and deletes a part, and a
// process killed between two part writes leaves every key named by some part. The real apiserver runs
// the same in npm run bench:inventory (10,000 entries).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../../api/constants.ts';
import type { InventoryEntry, Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient, RawRequest } from '../../../kube/client.ts';
import { fromResponse } from '../../../kube/errors.ts';
import { LABEL_INVENTORY_OF } from '../../../kube/inventory-parts.ts';
import { readInventoryParts } from '../../../kube/inventory-read.ts';
import { cmEntry } from '../decide/fixtures.ts';
import { openInventory } from './inventory-open.ts';
import { InventoryWriter } from './inventory-writer.ts';

const R = `sha256:${'a'.repeat(64)}`;
const release: Release = {
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: { name: 'web', namespace: 'app', uid: 'uid-web' },
  spec: { source: { inline: { manifests: 'x' } } },
};
const entry = (name: string): InventoryEntry => cmEntry(name, R);
const limits = { maxEntries: 2, maxBytes: 1_000_000 };

/** Inventory objects by name; `log` has one line per write; `failAfter` writes, every request throws. */
function fakeApi(opts: { failAfter?: number } = {}) {
  const objects = new Map<string, ReleaseInventory>();
  const log: string[] = [];
  let writes = 0;
  let rv = 0;
  const count = () => {
    if (opts.failAfter !== undefined && writes >= opts.failAfter) throw new Error('killed');
    writes++;
  };
  const store = (o: ReleaseInventory) => {
    const stored = structuredClone({
      ...o,
      metadata: { ...o.metadata, uid: `uid-${o.metadata.name}`, resourceVersion: String(++rv) },
    });
    objects.set(o.metadata.name ?? '', stored);
    return stored;
  };
  const names = (l?: readonly { name: string }[]) => (l ?? []).map((e) => e.name).join(',');
  const client = {
    pathOf: async (ref: { name?: string }) => ref.name ?? '',
    get: async (ref: { name: string }) => objects.get(ref.name),
    list: async (_ref: unknown, q?: { labelSelector?: string }) =>
      [...objects.values()].filter(
        (o) => `${LABEL_INVENTORY_OF}=${o.metadata.labels?.[LABEL_INVENTORY_OF]}` === q?.labelSelector,
      ),
    create: async (o: ReleaseInventory) => {
      count();
      if (objects.has(o.metadata.name ?? ''))
        throw fromResponse(409, { reason: 'AlreadyExists', message: 'exists' });
      log.push(`create ${o.metadata.name}`);
      return store(o);
    },
    delete: async (ref: { name: string }) => {
      count();
      log.push(`delete ${ref.name}`);
      return objects.delete(ref.name);
    },
    request: async (req: RawRequest) => {
      count();
      if (req.contentType === 'application/json-patch+json') {
        const ops = req.body as { op: string; path: string }[];
        const o = structuredClone(objects.get(req.path) as ReleaseInventory);
        if (ops.some((op) => op.path.startsWith('/metadata/finalizers'))) return o;
        const drop = new Set(
          ops.filter((op) => op.op === 'remove').map((op) => Number(op.path.split('/')[2])),
        );
        o.entries = (o.entries ?? []).filter((_, i) => !drop.has(i));
        log.push(`patch ${req.path} entries=[${names(o.entries)}]`);
        return store(o);
      }
      const body = req.body as ReleaseInventory;
      log.push(
        `apply ${body.metadata.name} entries=[${names(body.entries)}] pending=[${names(body.pending)}]`,
      );
      return store(body);
    },
  };
  return { client: client as unknown as KubeClient, objects, log };
}

const read = (client: KubeClient) => readInventoryParts(client, { namespace: 'app', name: 'web' });
const namedKeys = async (client: KubeClient) => {
  const inv = (await read(client))?.inventory;
  return [...(inv?.entries ?? []), ...(inv?.pending ?? [])].map((e) => e.name).sort();
};

describe('InventoryWriter over parts', () => {
  it('fills the parts in order, writes only the parts that change, records inside each part', async () => {
    const api = fakeApi();
    const w = new InventoryWriter(api.client, release, undefined, limits);
    await w.notePending(['a', 'b', 'c'].map(entry));
    await w.record(['a', 'b', 'c'].map(entry));
    // part 0's name cannot be a part's: its first apply creates it; part 1 is created first
    assert.deepEqual(api.log, [
      'apply web entries=[] pending=[a,b]',
      'create web-part-1',
      'apply web-part-1 entries=[] pending=[c]',
      'apply web entries=[a,b] pending=[]',
      'apply web-part-1 entries=[c] pending=[]',
    ]);
    api.log.length = 0;
    // a new key goes to the part with room; the full part 0 is not written again
    const again = new InventoryWriter(api.client, release, await read(api.client), limits);
    await again.notePending([entry('d')]);
    await again.record([entry('d')]);
    assert.deepEqual(api.log, [
      'apply web-part-1 entries=[c] pending=[d]',
      'apply web-part-1 entries=[c,d] pending=[]',
    ]);
    assert.equal(api.objects.get('web-part-1')?.metadata.labels?.[LABEL_INVENTORY_OF], 'web');
  });

  it('removal patches the parts holding the keys and deletes a part left empty', async () => {
    const api = fakeApi();
    const w = new InventoryWriter(api.client, release, undefined, limits);
    await w.record(['a', 'b', 'c'].map(entry));
    api.log.length = 0;
    await w.remove([entry('c'), entry('a')]);
    assert.deepEqual(api.log, ['patch web entries=[b]', 'patch web-part-1 entries=[]', 'delete web-part-1']);
    assert.deepEqual(await namedKeys(api.client), ['b']);
    assert.deepEqual(
      w.entries.map((e) => e.name),
      ['b'],
    );
  });

  it('killed between any two writes of note and record: every key stays named by a part', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];
    // the writes a full note + record of five keys makes (3 creates, 3 notes, 3 records)
    for (let failAfter = 0; failAfter <= 9; failAfter++) {
      const api = fakeApi({ failAfter });
      const w = new InventoryWriter(api.client, release, undefined, limits);
      let noted = false;
      try {
        await w.notePending(keys.map(entry));
        noted = true;
        await w.record(keys.map(entry));
      } catch {}
      // the apply happens only after notePending returned: from then on all five must be named
      if (noted) assert.deepEqual(await namedKeys(api.client), keys, `killed after ${failAfter} writes`);
    }
  });

  it('a Release named like a part creates its part 0 before writing it', async () => {
    const api = fakeApi();
    const named = { ...release, metadata: { ...release.metadata, name: 'shop-part-1' } };
    await new InventoryWriter(api.client, named, undefined, limits).notePending([entry('a')]);
    assert.deepEqual(api.log, ['create shop-part-1', 'apply shop-part-1 entries=[] pending=[a]']);
  });

  it('a part name taken by another Release’s inventory is refused, never written into', async () => {
    const api = fakeApi();
    api.objects.set('web-part-1', {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web-part-1', namespace: 'app', uid: 'other' },
      entries: [entry('theirs')],
    });
    const w = new InventoryWriter(api.client, release, undefined, limits);
    await assert.rejects(
      w.notePending(['a', 'b', 'c'].map(entry)),
      /web-part-1 .* belongs to Release web-part-1/,
    );
    assert.deepEqual(
      api.objects.get('web-part-1')?.entries?.map((e) => e.name),
      ['theirs'],
    );
  });
});

describe('openInventory', () => {
  const reads = (api: ReturnType<typeof fakeApi>) => {
    let n = 0;
    const c = api.client as unknown as { get: (r: unknown) => unknown; list: (...a: unknown[]) => unknown };
    const [get, list] = [c.get, c.list];
    c.get = (r) => {
      n++;
      return get(r);
    };
    c.list = (...a) => {
      n++;
      return list(...a);
    };
    return () => n;
  };
  const attempted: Release = {
    ...release,
    status: { lastAttempted: { renderRef: R, revision: 'r', time: 't', applied: true } },
  };
  it('a new Release, never attempted, none in the cache, not opened before: nothing read, nothing there', async () => {
    const api = fakeApi();
    const count = reads(api);
    const opened = new Set<string>();
    const deps = {
      local: api.client,
      cachedInventory: () => undefined,
      memory: { inventoriesOpened: opened },
    };
    assert.equal(await openInventory(deps, release), undefined);
    assert.equal(count(), 0);
    assert.ok(opened.has('uid-web'), 'noted before the first write');
    // a second sync by this process reads the API: its own writes may not be cached yet
    await new InventoryWriter(api.client, release, undefined, limits).notePending([entry('a')]);
    assert.deepEqual(
      (await openInventory(deps, release))?.inventory.pending?.map((p) => p.name),
      ['a'],
    );
    assert.ok(count() > 0);
  });
  const rows: [string, Release, boolean, Set<string>][] = [
    ['attempted before', attempted, false, new Set()],
    ['an inventory in the cache', release, true, new Set()],
    ['opened by this process before', release, false, new Set(['uid-web'])],
  ];
  for (const [name, rel, cached, opened] of rows)
    it(`reads the API: ${name}`, async () => {
      const api = fakeApi();
      await new InventoryWriter(api.client, rel, undefined, limits).notePending([entry('a')]);
      const count = reads(api);
      const inv = await read(api.client);
      const before = count();
      const deps = {
        local: api.client,
        cachedInventory: () => (cached ? inv : undefined),
        memory: { inventoriesOpened: opened },
      };
      assert.deepEqual(
        (await openInventory(deps, rel))?.inventory.pending?.map((p) => p.name),
        ['a'],
      );
      assert.ok(count() > before, 'read from the API');
    });
});
