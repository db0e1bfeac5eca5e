// The release controller end to end against a real kube-apiserver, run as the convoy-controller-manager
// process, with a bare git repository the test makes with the git CLI: waves in order (seen through a
// watch), inventory and status.waves, a new commit pruning and changing, the same content giving the
// same renderRef; bad input applying nothing; Manual mode, approvals and pins; deletion; crash safety.
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { type Fixture, makeRepo, serveGitHttp } from '../../src/render/git/testsupport.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { Transport } from '../../src/runtime/transport.ts';
import { rendersToKeep } from '../../src/store/keep.ts';
import { ANN_RENDER_REF, LABEL_RELEASE, releaseLabelValue } from '../../src/store/layout.ts';
import type { ControlPlane } from '../../src/testenv/index.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { configMap, inlineRelease } from '../support/hooks.ts';
import { type ManagerProcess, startControllerManager } from '../support/processes.ts';
import {
  cm,
  condition,
  getInventory,
  getRelease,
  gitRelease,
  isReady,
  mergePatch,
  readyReason,
  readyWith,
  releaseRef,
  waitForReady,
  wave,
} from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

let cluster: CrdCluster | undefined;
let cp: ControlPlane;
let client: KubeClient;
let manager: ManagerProcess | undefined;
let work: string;

before(async () => {
  cluster = await startCrdCluster({ namespaces: ['convoy-system'], scratch: 'convoy-release-e2e-' });
  ({ cp, client, work } = cluster);
});

after(async () => {
  await manager?.stop();
  await cluster?.stop();
});

async function namespace(name: string) {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

async function startManager(identity: string, env: Record<string, string> = {}) {
  return startControllerManager({
    tenancy: { mode: 'cluster' },
    kubeconfigPath: cp.kubeconfigPath,
    identity,
    gitCacheDir: join(work, `cache-${identity}`),
    env,
  });
}

const cmRef = (ns: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
type CM = { data?: Record<string, string>; metadata: { labels?: Record<string, string> } };

/** [name, renderRef] of every entry the inventory of Release ns/app records, sorted. */
const recorded = async (ns: string) =>
  (await getInventory(client, ns, 'app'))?.entries?.map((e) => [e.name, e.renderRef]).sort();

/** Commits `files` and waits until Release ns/app is Ready at that commit. */
async function commitApplied(repo: Fixture, ns: string, files: Readonly<Record<string, string | null>>) {
  const sha = await repo.commit(files);
  return waitForReady(client, ns, 'app', readyWith({ revision: sha }), `revision ${sha} applied`);
}

/** The manager the tests below share, started by the first that needs it, and a fresh namespace `ns`. */
async function sharedManagerIn(ns: string): Promise<ManagerProcess> {
  manager ??= await startManager('main');
  await namespace(ns);
  return manager;
}

/** Runs `body` with a fresh git repository `name`, removed however `body` ends. */
async function withRepo(name: string, body: (repo: Fixture) => Promise<void>): Promise<void> {
  const repo = await makeRepo(name);
  try {
    await body(repo);
  } finally {
    await repo.cleanup();
  }
}

/** Runs `body` on the shared manager, in a fresh namespace `ns`, with a fresh git repository of that name. */
async function onSharedManager(
  ns: string,
  body: (repo: Fixture, manager: ManagerProcess) => Promise<void>,
): Promise<void> {
  const m = await sharedManagerIn(ns);
  await withRepo(ns, (repo) => body(repo, m));
}

test('crash safety: killed between applying a wave and recording it, the restarted controller records or prunes what was pending', async () => {
  const ns = 'rel-crash';
  await namespace(ns);
  await withRepo('crash', async (repo) => {
    await repo.commit({
      'app/x0.yaml': cm('x0', { v: '1' }, wave(0)),
      'app/x1.yaml': cm('x1', { v: '1' }, wave(1)),
      'app/x1b.yaml': cm('x1b', { v: '1' }, wave(1)),
      'app/x2.yaml': cm('x2', { v: '1' }, wave(2)),
    });
    const crashing = await startManager('crash', { CONVOY_TEST_CRASH_AFTER_WAVE_APPLY: '1' });
    try {
      await client.create(gitRelease(ns, 'app', repo));
      let exitCode: number | string | undefined;
      void crashing.exited.then((c) => {
        exitCode = c;
      });
      const code = await waitFor('the controller to crash', async () => exitCode ?? false, {
        timeoutMs: 60_000,
      });
      assert.equal(code, 137, crashing.log().slice(-3000));
      // wave 1 is applied and labelled but not recorded; wave 2 never started
      for (const n of ['x1', 'x1b']) {
        const live = await client.get<CM>(cmRef(ns, n));
        assert.equal(live?.metadata.labels?.['convoy.kumodo.io/release'], `${ns}.app`, n);
      }
      assert.equal(await client.get(cmRef(ns, 'x2')), undefined);
      const inv = await getInventory(client, ns, 'app');
      assert.deepEqual(inv?.entries?.map((e) => e.name).sort(), ['x0']);
      assert.deepEqual(inv?.pending?.map((e) => e.name).sort(), ['x1', 'x1b']);

      // x1b leaves the render before the restart: only the inventory's pending list names it
      const sha2 = await repo.commit({ 'app/x1b.yaml': null });
      const restarted = await startManager('crash');
      try {
        const r = await waitForReady(client, ns, 'app', readyWith({ revision: sha2 }), 'Ready after restart');
        const R = r.status?.lastSuccessful?.renderRef;
        await waitFor('x1b deleted', async () => (await client.get(cmRef(ns, 'x1b'))) === undefined);
        assert.deepEqual(await recorded(ns), [
          ['x0', R],
          ['x1', R],
          ['x2', R],
        ]);
        const labelled = await client.list<{ metadata: { name: string } }>(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
          { labelSelector: `convoy.kumodo.io/release=${ns}.app` },
        );
        assert.deepEqual(
          labelled.map((o) => o.metadata.name).sort(),
          ['x0', 'x1', 'x2'],
          'nothing left orphaned',
        );
        // Events go out in the background (docs/rollouts.md#events-and-logs): wait for it, do not read once.
        let seen: readonly string[][] = [];
        await waitFor(
          'the Event saying the interrupted sync pruned x1b',
          async () => {
            const events = await client.list<{
              reason?: string;
              message?: string;
              involvedObject?: { name?: string };
            }>({ apiVersion: 'v1', kind: 'Event', namespace: ns });
            seen = events.map((e) => [e.reason ?? '', e.message ?? '']);
            return events.some(
              (e) =>
                e.involvedObject?.name === 'app' &&
                /pruned 1 objects an interrupted sync applied and left the render/.test(e.message ?? ''),
            );
          },
          { timeoutMs: 30_000 },
        ).catch((err: Error) => {
          throw new Error(`${err.message}\nEvents: ${JSON.stringify(seen)}`, { cause: err });
        });
      } finally {
        await restarted.stop();
      }
    } finally {
      await crashing.stop();
    }
  });
});

test('a 3-wave release applies in wave order, records inventory and waves, prunes, and reuses renderRefs', async () => {
  const ns = 'rel-waves';
  await onSharedManager(ns, async (repo, m0) => {
    const sha1 = await repo.commit({
      'app/a.yaml': cm('a', { v: '1' }, wave(0)),
      'app/b.yaml': cm('b', { v: '1' }, wave(1)),
      'app/b2.yaml': cm('b2', { v: '1' }, wave(1)),
      'app/c.yaml': cm('c', { v: '1' }, wave(2)),
    });

    const seen: { name: string; order: number }[] = [];
    let order = 0;
    const watch = new Informer<CM & { metadata: { name: string } }>(new Transport(cp.kubeConfig), {
      path: `/api/v1/namespaces/${ns}/configmaps`,
    });
    watch.addHandlers({ add: (o) => seen.push({ name: o.metadata.name, order: order++ }) });
    watch.start();
    await watch.waitForSync();

    try {
      await client.create(gitRelease(ns, 'app', repo));
      const r1 = await waitForReady(client, ns, 'app', isReady, 'Ready=True');
      const R1 = r1.status?.lastSuccessful?.renderRef ?? '';
      assert.equal(r1.status?.lastSuccessful?.revision, sha1);
      assert.match(R1, /^sha256:[0-9a-f]{64}$/);

      // wave order through the watch: every object of a wave was ADDED before any of the next wave
      const pos = (n: string) => seen.find((s) => s.name === n)?.order ?? -1;
      for (const n of ['a', 'b', 'b2', 'c'])
        assert.ok(pos(n) >= 0, `${n} seen by the watch: ${JSON.stringify(seen)}`);
      assert.ok(pos('a') < Math.min(pos('b'), pos('b2')), JSON.stringify(seen));
      assert.ok(Math.max(pos('b'), pos('b2')) < pos('c'), JSON.stringify(seen));

      const inv = await getInventory(client, ns, 'app');
      assert.deepEqual(inv?.entries?.map((e) => [e.kind, e.name, e.wave, e.renderRef]).sort(), [
        ['ConfigMap', 'a', 0, R1],
        ['ConfigMap', 'b', 1, R1],
        ['ConfigMap', 'b2', 1, R1],
        ['ConfigMap', 'c', 2, R1],
      ]);
      assert.deepEqual(
        r1.status?.waves?.map((w) => [w.renderRef, w.wave]),
        [
          [R1, 0],
          [R1, 1],
          [R1, 2],
        ],
      );
      for (const w of r1.status?.waves ?? []) assert.ok(!Number.isNaN(Date.parse(w.startedAt)));
      assert.equal(r1.status?.history?.length, 1);
      assert.equal(r1.status?.observedGeneration, r1.metadata.generation);
      const a = await client.get<CM>(cmRef(ns, 'a'));
      assert.equal(a?.metadata.labels?.['convoy.kumodo.io/release'], `${ns}.app`);

      // a commit that removes c and changes b
      const r2 = await commitApplied(repo, ns, {
        'app/c.yaml': null,
        'app/b.yaml': cm('b', { v: '2' }, wave(1)),
      });
      const R2 = r2.status?.lastSuccessful?.renderRef;
      assert.notEqual(R2, R1);
      assert.equal((await client.get<CM>(cmRef(ns, 'b')))?.data?.v, '2');
      await waitFor('c pruned', async () => (await client.get(cmRef(ns, 'c'))) === undefined);
      assert.deepEqual(await recorded(ns), [
        ['a', R2],
        ['b', R2],
        ['b2', R2],
      ]);

      // a later commit whose content equals the first gives the first's renderRef
      const r3 = await commitApplied(repo, ns, {
        'app/b.yaml': cm('b', { v: '1' }, wave(1)),
        'app/c.yaml': cm('c', { v: '1' }, wave(2)),
      });
      assert.equal(r3.status?.lastSuccessful?.renderRef, R1);
      assert.deepEqual(
        r3.status?.history?.map((h) => h.renderRef),
        [R1, R2, R1],
      );
      assert.ok(await client.get(cmRef(ns, 'c')));

      // a steady Release writes nothing: after three more reconciles its resourceVersion has not moved
      await m0.moreReconciles(3);
      const steady = await getRelease(client, ns, 'app');
      assert.equal(steady?.metadata.resourceVersion, r3.metadata.resourceVersion, 'no write in steady state');
    } finally {
      await watch.stop();
    }
  });
});

test('bad input applies nothing, names the file or object, and keeps the previous render live', async () => {
  const ns = 'rel-bad';
  await onSharedManager(ns, async (repo) => {
    await repo.commit({ 'app/good.yaml': cm('good', { v: '1' }) });
    await client.create(gitRelease(ns, 'app', repo));
    const ok = await waitForReady(client, ns, 'app', isReady, 'Ready=True');
    const R1 = ok.status?.lastSuccessful?.renderRef;

    const cases: ReadonlyArray<{ files: Record<string, string | null>; reason: string; names: RegExp }> = [
      {
        files: { 'app/broken.yaml': 'kind: ConfigMap\nmetadata: [unclosed\n' },
        reason: 'RenderFailed',
        names: /broken\.yaml/,
      },
      {
        files: {
          'app/broken.yaml': null,
          'app/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n',
        },
        reason: 'DryRunFailed',
        names: /Widget.*w/,
      },
      {
        files: {
          'app/widget.yaml': null,
          'app/svc.yaml':
            'apiVersion: v1\nkind: Service\nmetadata:\n  name: bad-svc\nspec:\n  ports:\n  - port: 70000\n',
        },
        reason: 'DryRunFailed',
        names: /Service .*bad-svc/,
      },
    ];
    for (const c of cases) {
      const sha = await repo.commit({
        ...c.files,
        'app/new.yaml': cm('new', { at: JSON.stringify(c.files).length.toString() }),
      });
      const r = await waitForReady(
        client,
        ns,
        'app',
        (x) =>
          condition(x, 'Ready')?.reason === c.reason && c.names.test(condition(x, 'Ready')?.message ?? ''),
        `${c.reason} for ${sha}`,
      );
      const ready = condition(r, 'Ready');
      assert.equal(ready?.status, 'False');
      assert.match(ready?.message ?? '', c.names);
      assert.equal(await client.get(cmRef(ns, 'new')), undefined, `nothing of ${sha} applied`);
      assert.equal(r.status?.lastSuccessful?.renderRef, R1, 'the previous render stays live');
      assert.deepEqual(await recorded(ns), [['good', R1]]);
    }
  });
});

test('a git Secret with a wrong token: SourceFailed, nothing applied, the previous render stays live', async () => {
  const ns = 'rel-token';
  await onSharedManager(ns, async (repo) => {
    const server = await serveGitHttp(repo.srv, `Basic ${Buffer.from('git:right-token').toString('base64')}`);
    await repo.commit({ 'app/one.yaml': cm('one', { v: '1' }) });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'git', namespace: ns },
      stringData: { token: 'right-token' },
    };
    try {
      await client.create(secret);
      const rel = gitRelease(ns, 'app', repo);
      rel.spec.source = {
        git: {
          url: `${server.base}/${repo.name}.git`,
          ref: { branch: 'main' },
          path: 'app',
          secretRef: { name: 'git' },
        },
      };
      await client.create(rel);
      const ok = await waitForReady(client, ns, 'app', isReady, 'Ready=True');
      await mergePatch(
        client,
        { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'git' },
        { stringData: { token: 'wrong-token' } },
      );
      // Every interval asks the server again, so the wrong token fails before any new commit. Waiting for
      // that first also keeps a sync that read the right token just before the patch (one runs every
      // second) from fetching the commit below with it.
      await waitForReady(client, ns, 'app', readyReason('SourceFailed'), 'SourceFailed');
      await repo.commit({ 'app/two.yaml': cm('two', { v: '1' }) });
      server.requests = 0;
      await waitFor('a fetch after the commit, refused', async () => server.requests >= 2);
      const r = await waitForReady(client, ns, 'app', readyReason('SourceFailed'), 'SourceFailed');
      assert.equal(condition(r, 'Ready')?.status, 'False');
      assert.doesNotMatch(condition(r, 'Ready')?.message ?? '', /wrong-token/, 'the credential never shows');
      assert.equal(await client.get(cmRef(ns, 'two')), undefined);
      assert.equal(r.status?.lastSuccessful?.renderRef, ok.status?.lastSuccessful?.renderRef);
      assert.ok(await client.get(cmRef(ns, 'one')));
    } finally {
      await server.close();
    }
  });
});

test('Manual mode holds; a wake-up does not open it; approval applies; a new commit needs a new approval; a pin works with the source gone', async () => {
  const ns = 'rel-manual';
  await onSharedManager(ns, async (repo) => {
    const sha1 = await repo.commit({ 'app/m.yaml': cm('m', { v: '1' }) });
    const relRef = releaseRef(ns, 'app');
    await client.create(gitRelease(ns, 'app', repo, { syncPolicy: { mode: 'Manual', interval: '1s' } }));
    const held = await waitForReady(client, ns, 'app', readyReason('WaitingForApproval'), 'held');
    assert.equal(condition(held, 'Ready')?.status, 'False');
    assert.equal(held.status?.currentRender?.revision, sha1);
    const R1 = held.status?.currentRender?.renderRef ?? '';
    assert.equal(await client.get(cmRef(ns, 'm')), undefined);

    // a wake-up alone, together with a spec change that proves a reconcile saw it
    await mergePatch(client, relRef, {
      metadata: { annotations: { 'convoy.kumodo.io/sync-requested-at': new Date().toISOString() } },
      spec: { historyLimit: 5 },
    });
    const woke = await waitForReady(
      client,
      ns,
      'app',
      (r) =>
        r.status?.observedGeneration === r.metadata.generation &&
        r.metadata.generation === (held.metadata.generation ?? 0) + 1,
      'reconciled after wake-up',
    );
    assert.equal(condition(woke, 'Ready')?.reason, 'WaitingForApproval');
    assert.equal(await client.get(cmRef(ns, 'm')), undefined, 'a wake-up does not open the gate');

    await mergePatch(client, relRef, {
      metadata: { annotations: { 'convoy.kumodo.io/approved-render': R1 } },
    });
    await waitForReady(client, ns, 'app', readyWith({ renderRef: R1 }), 'approved R1 applied');
    assert.equal((await client.get<CM>(cmRef(ns, 'm')))?.data?.v, '1');

    const sha2 = await repo.commit({ 'app/m.yaml': cm('m', { v: '2' }) });
    const held2 = await waitForReady(
      client,
      ns,
      'app',
      (r) =>
        r.status?.currentRender?.revision === sha2 && condition(r, 'Ready')?.reason === 'WaitingForApproval',
      'new commit held',
    );
    const R2 = held2.status?.currentRender?.renderRef ?? '';
    assert.equal(
      (await client.get<CM>(cmRef(ns, 'm')))?.data?.v,
      '1',
      'the new commit is not applied without approval',
    );
    await mergePatch(client, relRef, {
      metadata: { annotations: { 'convoy.kumodo.io/approved-render': R2 } },
    });
    await waitForReady(client, ns, 'app', readyWith({ renderRef: R2 }), 'approved R2 applied');
    assert.equal((await client.get<CM>(cmRef(ns, 'm')))?.data?.v, '2');

    // the source becomes unreachable; a pin re-applies R1 from the render store
    await rename(join(repo.srv, `${repo.name}.git`), join(repo.srv, 'moved.git'));
    await mergePatch(client, relRef, { spec: { pin: { renderRef: R1 } } });
    await waitForReady(client, ns, 'app', readyWith({ renderRef: R1 }), 'pinned R1 applied');
    assert.equal((await client.get<CM>(cmRef(ns, 'm')))?.data?.v, '1');
    // without the pin the unreachable source shows
    await mergePatch(client, relRef, { spec: { pin: null } });
    await waitForReady(client, ns, 'app', readyReason('SourceFailed'), 'SourceFailed without the pin');
  });
});

test('deleting a Release removes its objects, inventory and render Secrets; with Orphan the objects stay', async () => {
  const ns = 'rel-del';
  await sharedManagerIn(ns);
  const inline = (name: string, policy: 'Delete' | 'Orphan', objects: string[]): Release => ({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { inline: { manifests: objects.map((o) => cm(o, { v: '1' })).join('---\n') } },
      render: { targetNamespace: ns },
      deletionPolicy: policy,
    },
  });
  await client.create(inline('del', 'Delete', ['d1', 'd2']));
  await client.create(inline('orph', 'Orphan', ['o1']));
  for (const n of ['del', 'orph']) {
    await waitForReady(client, ns, n, isReady, 'Ready');
  }
  const secrets = (n: string) =>
    client.list<{ type?: string }>(
      { apiVersion: 'v1', kind: 'Secret', namespace: ns },
      { labelSelector: `convoy.kumodo.io/release=${ns}.${n}` },
    );
  assert.ok((await secrets('del')).some((s) => s.type === 'convoy.kumodo.io/render'));
  assert.ok((await secrets('orph')).length > 0);
  for (const n of ['del', 'orph']) await client.delete(releaseRef(ns, n));
  for (const n of ['del', 'orph']) {
    await waitFor(`Release ${n} gone`, async () => (await getRelease(client, ns, n)) === undefined);
    assert.equal(await getInventory(client, ns, n), undefined, `inventory of ${n}`);
    assert.deepEqual(await secrets(n), [], `render Secrets of ${n}`);
  }
  assert.equal(await client.get(cmRef(ns, 'd1')), undefined);
  assert.equal(await client.get(cmRef(ns, 'd2')), undefined);
  assert.ok(await client.get(cmRef(ns, 'o1')), 'Orphan keeps the objects');
});

test('renders that leave the kept set are collected from the render store, and only those', async () => {
  const ns = 'render-gc';
  await sharedManagerIn(ns);
  const rel = (v: string) => inlineRelease(ns, 'app', [configMap('c', 0, { v })], { historyLimit: 1 });
  const stored = async () =>
    new Set(
      (
        await client.list<{ metadata: { annotations?: Record<string, string> } }>(
          { apiVersion: 'v1', kind: 'Secret', namespace: ns },
          { labelSelector: `${LABEL_RELEASE}=${releaseLabelValue(ns, 'app')}` },
        )
      ).map((s) => s.metadata.annotations?.[ANN_RENDER_REF] ?? ''),
    );
  const attempted = (previous: string | undefined) =>
    waitForReady(
      client,
      ns,
      'app',
      (r) => isReady(r) && r.status?.lastAttempted?.renderRef !== previous,
      'a new render applied',
    );
  await client.create(rel('1'));
  const first = await attempted(undefined);
  let ref = first.status?.lastAttempted?.renderRef;
  assert.deepEqual(await stored(), new Set([ref]), 'the first render stored');
  for (const v of ['2', '3']) {
    await mergePatch(client, releaseRef(ns, 'app'), {
      spec: { source: { inline: rel(v).spec.source.inline } },
    });
    ref = (await attempted(ref)).status?.lastAttempted?.renderRef;
  }
  const last = await getRelease(client, ns, 'app');
  const keep = rendersToKeep(last?.status ?? {}, last?.spec ?? {});
  assert.equal(keep.size, 1, 'historyLimit 1: only the newest render is kept');
  await waitFor('the older renders are collected', async () => {
    const s = await stored();
    return s.size === keep.size && [...keep].every((r) => s.has(r));
  });
});
