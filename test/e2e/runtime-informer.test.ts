// The harness's informer against the real control plane: it delivers add/update/delete with
// an indexed cache, survives a restart of the kube-apiserver process (changes written while
// the apiserver was down are seen after it returns), relists when the watch it resumes gets a
// real 410 (a restarted apiserver's watch cache starts at etcd's current revision, so every
// pre-restart resourceVersion is too old), and re-delivers cached objects on resync.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { KubeApiError } from '../../src/kube/errors.ts';
import { Informer, type Relist } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import { type ControlPlane, isAlive, startControlPlane } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

type CM = {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
};

const NS = 'informer-test';
const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): CM => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels },
  data,
});
const cmPath = (name?: string) => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;

/** The etcd v3 JSON gateway: writes behind the apiserver's back, and compaction. */
class Etcd {
  readonly #endpoint: string;
  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }
  async #call<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(`${this.#endpoint}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
  put(key: string, value: unknown): Promise<unknown> {
    return this.#call('/v3/kv/put', { key: b64(key), value: b64(JSON.stringify(value)) });
  }
  del(key: string): Promise<unknown> {
    return this.#call('/v3/kv/deleterange', { key: b64(key) });
  }
}
const b64 = (s: string) => Buffer.from(s).toString('base64');

type Seen = {
  kind: 'add' | 'update' | 'delete';
  name: string;
  data: Record<string, string> | undefined;
  /** An add from the first LIST after start (routine work for a controller's queue). */
  initialList?: boolean;
};

describe('runtime informer on the real apiserver', () => {
  let cp: ControlPlane;
  let t: Transport;
  let etcd: Etcd;
  let inf: Informer<CM>;
  /** Every relist with how many events had been delivered when it began. */
  let relists: Array<{ relist: Relist; seenBefore: number }>;
  let errors: number;
  const seen: Seen[] = [];

  const liveRvs = async (): Promise<Map<string, string>> => {
    const list = await t.request<{ items: CM[] }>('GET', `${cmPath()}?labelSelector=app%3Dtest`);
    return new Map(list.items.map((i) => [i.metadata.name, i.metadata.resourceVersion ?? '']));
  };
  const cachedRvs = () =>
    new Map(inf.cache.list().map((i) => [i.metadata.name, i.metadata.resourceVersion ?? '']));
  const cacheMatchesServer = async () => {
    const live = await liveRvs();
    return JSON.stringify([...live].sort()) === JSON.stringify([...cachedRvs()].sort()) ? live : false;
  };
  const sawEvent = (kind: Seen['kind'], name: string, pred: (d: Seen['data']) => boolean = () => true) =>
    waitFor(
      `${kind} ${name}`,
      async () => seen.some((s) => s.kind === kind && s.name === name && pred(s.data)),
      {
        timeoutMs: 60_000,
      },
    );

  /**
   * Restarts the apiserver and runs `whileDown` once its old process has exited. (A closed port
   * is not enough: on SIGTERM the apiserver closes its listener at once but keeps serving open
   * watches, delivering new etcd changes on them, until it exits.)
   */
  const restartWith = async (whileDown: () => Promise<void>) => {
    const old = cp.processes().find((p) => p.name === 'kube-apiserver');
    assert.ok(old, 'no kube-apiserver process');
    const restarting = cp.restartApiServer();
    await waitFor('old kube-apiserver exited', async () => !isAlive(old.pid), {
      timeoutMs: 60_000,
      intervalMs: 10,
    });
    await whileDown();
    await restarting;
  };

  before(async () => {
    cp = await startControlPlane();
    t = new Transport(cp.kubeConfig);
    etcd = new Etcd(cp.etcdEndpoint);
    await t.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NS },
    });
    relists = [];
    errors = 0;
    inf = new Informer<CM>(t, {
      path: cmPath(),
      labelSelector: 'app=test',
      resyncMs: 0,
      backoffBaseMs: 100,
      backoffMaxMs: 1000,
      log: process.env.RUNTIME_TEST_LOG
        ? pino({ level: 'debug' }, pino.destination({ dest: process.env.RUNTIME_TEST_LOG, sync: true }))
        : pino({ level: 'silent' }),
      hooks: {
        onRelist: (relist) => relists.push({ relist, seenBefore: seen.length }),
        onError: () => errors++,
      },
    });
    inf.addIndex('color', (o) => (o.data?.color ? [o.data.color] : []));
    inf.addHandlers({
      add: (o, initialList) => seen.push({ kind: 'add', name: o.metadata.name, data: o.data, initialList }),
      update: (_o, n) => seen.push({ kind: 'update', name: n.metadata.name, data: n.data }),
      delete: (o) => seen.push({ kind: 'delete', name: o.metadata.name, data: o.data }),
    });
    await t.request('POST', cmPath(), cm('pre', { color: 'red' }, { app: 'test' }));
    inf.start();
    await inf.waitForSync();
  });

  after(async () => {
    await inf?.stop();
    await cp?.stop();
  });

  it('lists, watches and indexes', async () => {
    assert.ok(inf.hasSynced());
    assert.deepEqual(
      inf.cache.list().map((o) => o.metadata.name),
      ['pre'],
    );
    await t.request('POST', cmPath(), cm('a', { color: 'blue' }, { app: 'test' }));
    await t.request('POST', cmPath(), cm('ignored', { color: 'blue' }, { app: 'other' }));
    await sawEvent('add', 'a');
    // Only what the first LIST brought is marked so; an object created since is a change.
    assert.deepEqual(
      seen.filter((e) => e.kind === 'add').map((e) => [e.name, e.initialList]),
      [
        ['pre', true],
        ['a', false],
      ],
    );
    const a = await t.request<CM>('GET', cmPath('a'));
    await t.request('PUT', cmPath('a'), { ...a, data: { color: 'red' } });
    await sawEvent('update', 'a', (d) => d?.color === 'red');
    assert.deepEqual(
      inf.cache
        .byIndex('color', 'red')
        .map((o) => o.metadata.name)
        .sort(),
      ['a', 'pre'],
    );
    assert.deepEqual(inf.cache.byIndex('color', 'blue'), []);
    await t.request('DELETE', cmPath('a'));
    await sawEvent('delete', 'a');
    assert.equal(inf.cache.get(`${NS}/a`), undefined);
    assert.equal(inf.cache.get(`${NS}/ignored`), undefined, 'label selector not applied');
    // managedFields are stripped by default
    assert.equal('managedFields' in (inf.cache.get(`${NS}/pre`)?.metadata ?? {}), false);
    await waitFor('cache equals a fresh LIST', cacheMatchesServer);
  });

  it('survives an apiserver restart and sees changes made while it was down', async () => {
    await t.request('POST', cmPath(), cm('to-update', { v: '1' }, { app: 'test' }));
    await t.request('POST', cmPath(), cm('to-delete', { v: '1' }, { app: 'test' }));
    await sawEvent('add', 'to-delete');
    const errorsBefore = errors;
    await restartWith(async () => {
      // Written straight into etcd: only a working list/watch after the restart can see them.
      const key = (n: string) => `/registry/configmaps/${NS}/${n}`;
      await etcd.put(key('made-while-down'), cm('made-while-down', { v: 'down' }, { app: 'test' }));
      await etcd.put(key('to-update'), cm('to-update', { v: 'down' }, { app: 'test' }));
      await etcd.del(key('to-delete'));
    });
    await sawEvent('add', 'made-while-down', (d) => d?.v === 'down');
    await sawEvent('update', 'to-update', (d) => d?.v === 'down');
    await sawEvent('delete', 'to-delete');
    assert.ok(errors > errorsBefore, 'the informer never noticed the apiserver went away');
    // And it keeps watching after the restart.
    await t.request('POST', cmPath(), cm('after-restart', { v: '1' }, { app: 'test' }));
    await sawEvent('add', 'after-restart');
    await waitFor('cache equals a fresh LIST', cacheMatchesServer);
  });

  it('relists after a real 410 on the watch resumed from a pre-restart resourceVersion', async () => {
    const key = (n: string) => `/registry/configmaps/${NS}/${n}`;
    for (const n of ['gone-keep', 'gone-upd', 'gone-del'])
      await t.request('POST', cmPath(), cm(n, { v: '1' }, { app: 'test' }));
    await waitFor('cache equals a fresh LIST', cacheMatchesServer);
    const relistsBefore = relists.length;
    let staleRv: string | undefined;
    await restartWith(async () => {
      // The old process has exited: nothing can move the informer's version any more.
      staleRv = inf.lastResourceVersion();
      await etcd.put(key('gone-new'), cm('gone-new', { v: 'down' }, { app: 'test' }));
      await etcd.put(key('gone-upd'), cm('gone-upd', { v: 'down' }, { app: 'test' }));
      await etcd.del(key('gone-del'));
    });
    assert.ok(staleRv, 'informer had no resourceVersion');

    // The server itself: a watch resumed from that version is answered with a 410 ERROR event.
    const direct = await t
      .watch(
        `${cmPath()}?watch=1&timeoutSeconds=5&resourceVersion=${staleRv}`,
        () => {},
        AbortSignal.timeout(30_000),
        30_000,
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(direct instanceof KubeApiError, `watch from ${staleRv} was not refused: ${String(direct)}`);
    assert.equal(direct.code, 410);
    assert.equal(direct.origin, 'watch-event');

    // The informer got that 410 on its resumed watch and relisted because of it.
    const gone = await waitFor('a relist caused by 410', async () =>
      relists.slice(relistsBefore).find((r) => r.relist.cause === 'gone'),
    );
    assert.deepEqual(
      relists.slice(relistsBefore).map((r) => r.relist.cause),
      ['gone'],
      'the only relist after the restart is the one for the 410',
    );
    assert.deepEqual(gone.relist, {
      cause: 'gone',
      status: 410,
      origin: 'watch-event',
      reason: 'Expired',
      request: 'watch',
      resourceVersion: staleRv,
    });

    // Every change made while it was away is delivered by that relist, and nothing else is deleted.
    await waitFor('cache equals a fresh LIST', cacheMatchesServer);
    const after = seen.slice(gone.seenBefore);
    const one = (kind: Seen['kind'], name: string) => after.filter((s) => s.kind === kind && s.name === name);
    assert.equal(one('add', 'gone-new').length, 1, 'add of gone-new');
    assert.equal(one('add', 'gone-new')[0]?.data?.v, 'down');
    assert.equal(one('update', 'gone-upd').length, 1, 'update of gone-upd');
    assert.equal(one('update', 'gone-upd')[0]?.data?.v, 'down');
    assert.equal(one('delete', 'gone-del').length, 1, 'delete of gone-del');
    const live = await liveRvs();
    const spurious = after.filter((s) => s.kind === 'delete' && live.has(s.name)).map((s) => s.name);
    assert.deepEqual(spurious, [], 'deletes delivered for objects that still exist');
    assert.deepEqual(
      after.filter((s) => s.kind === 'update' && s.name === 'gone-keep'),
      [],
      'an unchanged object is not re-delivered by the relist',
    );
    assert.ok(inf.cache.get(`${NS}/gone-keep`));
  });

  it('resync re-delivers every cached object as update(obj, obj)', async () => {
    const resyncs: string[] = [];
    const r = new Informer<CM>(t, {
      path: cmPath(),
      labelSelector: 'app=test',
      resyncMs: 300,
      log: pino({ level: 'silent' }),
    });
    r.addHandlers({ update: (o, n) => (o === n ? resyncs.push(n.metadata.name) : undefined) });
    r.start();
    try {
      await r.waitForSync();
      const names = r.cache.list().map((o) => o.metadata.name);
      await waitFor('two resyncs of every object', async () =>
        names.every((n) => resyncs.filter((x) => x === n).length >= 2),
      );
    } finally {
      await r.stop();
    }
  });
});
