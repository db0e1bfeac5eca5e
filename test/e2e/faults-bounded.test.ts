// Issue 20, findings 2, 5 and 7 on the real control plane with a real controller-manager process:
// a git server that accepts and never answers (a silent TCP listener on loopback) ends in SourceTimeout
// within the bound and leaves no git process, Releases on the same URL get their condition too, a sync
// request supersedes the stuck reconcile and deletion completes while a fetch is stuck; deletion with a
// missing Cluster, a Cluster of another namespace, and a Cluster gone after the apply (waits with a
// reason and an Event until the orphan annotation), and a namespace deleted with its Cluster and Release;
// an Event recorded while kube-apiserver is down arrives once it is back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANNOTATION_DELETION_POLICY,
  ANNOTATION_SYNC_REQUESTED_AT,
  API_VERSION,
} from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { type DropReason, EventRecorder } from '../../src/kube/events.ts';
import {
  processesMentioning,
  type SilentListener,
  silentListener,
} from '../../src/render/git/testsupport.ts';
import { startClusterManager, useCrdCluster } from '../support/cluster.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { cm, condition, getRelease, mergePatch, releaseRef, waitForReady } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const GIT_TIMEOUT_S = 15;

let manager: ManagerProcess | undefined;
let silent: SilentListener | undefined;
// workloads: kube-controller-manager's namespace controller, which deletes what a deleted namespace holds.
const { cp, client } = useCrdCluster(
  { namespaces: ['convoy-system'], scratch: 'convoy-faults-e2e-', workloads: true, nodes: 1 },
  {
    setUp: async (cluster) => {
      silent = await silentListener();
      manager = await startClusterManager(cluster, 'faults', {
        // Only the total limit can end a fetch from the silent server here.
        args: [`--git-timeout=${GIT_TIMEOUT_S}s`, '--git-stall-timeout=10m', '--reconcile-timeout=1m'],
      });
    },
    tearDown: async () => {
      await manager?.stop();
      await silent?.close();
    },
  },
);

async function namespace(name: string) {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function release(ns: string, name: string, spec: Partial<Release['spec']>): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: { source: { inline: { manifests: cm(`${name}-cm`, { v: '1' }) } }, ...spec },
  };
}

async function eventsOf(ns: string, name: string) {
  const list = await client.request<{ items: { reason: string; type: string; message: string }[] }>({
    method: 'GET',
    path: `/api/v1/namespaces/${ns}/events`,
    query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items;
}

const gone = (ns: string, name: string, what: string, timeoutMs = 60_000) =>
  waitFor(what, async () => (await getRelease(client, ns, name)) === undefined, {
    timeoutMs,
    intervalMs: 200,
  });

test('a git server that never answers: SourceTimeout in bound, no orphan git, same-URL Releases, sync and deletion', async () => {
  const ns = 'stuck-git';
  await namespace(ns);
  const s = silent as SilentListener;
  const git = { git: { url: s.url, ref: { branch: 'main' } } };
  const t0 = Date.now();
  const acceptedBefore = s.accepted;
  await client.create(release(ns, 'a', { source: git, syncPolicy: { interval: '1m' } }));
  await client.create(release(ns, 'b', { source: git, syncPolicy: { interval: '1m' } }));
  await waitFor('a fetch reached the silent server', async () => s.accepted > acceptedBefore);

  // convoy sync while the fetch is stuck: the reconcile in flight is superseded at once.
  await mergePatch(client, releaseRef(ns, 'a'), {
    metadata: { annotations: { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() } },
  });
  await waitFor('the sync request superseded the stuck reconcile', async () => {
    return (await (manager as ManagerProcess).metric('convoy_reconcile_superseded_total')) >= 1;
  });

  const timedOut = (r: Release) => {
    const c = condition(r, 'Ready');
    return c?.status === 'False' && c.reason === 'SourceTimeout';
  };
  // Bound: the git timeout, plus the start of the fetch and a status write.
  const bound = (GIT_TIMEOUT_S + 20) * 1000;
  for (const name of ['a', 'b']) {
    const r = await waitForReady(client, ns, name, timedOut, 'Ready=False SourceTimeout', bound);
    const message = condition(r, 'Ready')?.message ?? '';
    assert.ok(message.includes(s.url), message);
    assert.match(message, new RegExp(`timed out after ${GIT_TIMEOUT_S}s`));
  }
  assert.ok(Date.now() - t0 < bound, `took ${Date.now() - t0} ms`);
  const warn = await waitFor('a SourceTimeout Event', async () =>
    (await eventsOf(ns, 'a')).find((e) => e.reason === 'SourceTimeout' && e.type === 'Warning'),
  );
  assert.ok(warn.message.includes(s.url));
  // The whole process group went with the timeout: no git, no `git remote-http` (of any parent).
  await waitFor(
    'no git process for the silent server',
    async () => {
      const left = await processesMentioning(`127.0.0.1:${s.port}`);
      return left.length === 0 ? true : (false as const);
    },
    { timeoutMs: 5000 },
  );

  // The retry (with backoff) is stuck again; deletion does not wait for it.
  const acceptedNow = s.accepted;
  await waitFor('a retried fetch is stuck', async () => s.accepted > acceptedNow, { timeoutMs: 60_000 });
  const deleting = Date.now();
  await client.delete(releaseRef(ns, 'a'));
  await gone(ns, 'a', 'a deleted', GIT_TIMEOUT_S * 1000);
  assert.ok(Date.now() - deleting < GIT_TIMEOUT_S * 1000, 'deletion waited for the stuck fetch');
  await client.delete(releaseRef(ns, 'b'));
  await gone(ns, 'b', 'b deleted');
  await waitFor(
    'no git process left',
    async () => (await processesMentioning(`127.0.0.1:${s.port}`)).length === 0,
    {
      timeoutMs: (GIT_TIMEOUT_S + 5) * 1000,
    },
  );
});

test('deletion with a missing Cluster or a Cluster of another namespace completes (nothing was applied)', async () => {
  await namespace('del-a');
  await namespace('del-other');
  await client.create({
    apiVersion: API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'theirs', namespace: 'del-other' },
    spec: {},
  } as never);
  await client.create(release('del-a', 'missing', { cluster: { name: 'nowhere' } }));
  await client.create(release('del-a', 'borrowed', { cluster: { name: 'theirs' } }));
  for (const [name, cluster] of [
    ['missing', 'nowhere'],
    ['borrowed', 'theirs'],
  ] as const) {
    const r = await waitForReady(
      client,
      'del-a',
      name,
      (x) => condition(x, 'Ready')?.reason === 'ClusterNotFound',
      'ClusterNotFound',
    );
    assert.match(
      condition(r, 'Ready')?.message ?? '',
      new RegExp(`Cluster "${cluster}" not found in namespace "del-a"`),
    );
    await client.delete(releaseRef('del-a', name));
    await gone('del-a', name, `${name} deleted`);
  }
});

test('a Cluster gone after the apply: deletion waits with a reason and an Event, the orphan annotation ends it', async () => {
  const ns = 'del-wait';
  await namespace(ns);
  const clusterRef = { apiVersion: API_VERSION, kind: 'Cluster', namespace: ns, name: 'here' };
  await client.create({ ...clusterRef, metadata: { name: 'here', namespace: ns }, spec: {} } as never);
  await client.create(release(ns, 'web', { cluster: { name: 'here' }, render: { targetNamespace: ns } }));
  await waitForReady(client, ns, 'web', (r) => condition(r, 'Ready')?.status === 'True', 'Ready');
  await client.delete(clusterRef);
  await client.delete(releaseRef(ns, 'web'));
  const r = await waitForReady(
    client,
    ns,
    'web',
    (x) => /^deletion waits/.test(condition(x, 'Ready')?.message ?? ''),
    'deletion waits',
  );
  const ready = condition(r, 'Ready');
  assert.equal(ready?.reason, 'ClusterNotFound');
  assert.match(
    ready?.message ?? '',
    /Cluster "here" not found.*1 object cannot be cleaned up.*deletion-policy=orphan/,
  );
  const ev = await waitFor('a Warning Event naming the Cluster', async () =>
    (await eventsOf(ns, 'web')).find((e) => e.type === 'Warning' && /deletion waits/.test(e.message)),
  );
  assert.match(ev.message, /Cluster "here"/);
  assert.ok(r.metadata.finalizers?.includes('convoy.kumodo.io/finalizer'));

  await mergePatch(client, releaseRef(ns, 'web'), {
    metadata: { annotations: { [ANNOTATION_DELETION_POLICY]: 'orphan' } },
  });
  await gone(ns, 'web', 'web deleted after the orphan annotation');
  assert.ok(
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web-cm' }),
    'orphaned',
  );
  await waitFor('an Orphaned Event', async () =>
    (await eventsOf(ns, 'web')).find((e) => e.reason === 'Orphaned' && /left 1 objects/.test(e.message)),
  );
});

test('a namespace deleted with its Cluster and Release finishes Terminating', async () => {
  const ns = 'del-ns';
  await namespace(ns);
  await client.create({
    apiVersion: API_VERSION,
    kind: 'Cluster',
    metadata: { name: 'c', namespace: ns },
    spec: {},
  } as never);
  await client.create(release(ns, 'app', { cluster: { name: 'c' }, render: { targetNamespace: ns } }));
  await waitForReady(client, ns, 'app', (r) => condition(r, 'Ready')?.status === 'True', 'Ready');
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
  await waitFor(
    'the namespace is gone',
    async () => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns })) === undefined,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
});

test('an Event recorded while kube-apiserver is down arrives once it is back', async () => {
  const ns = 'events-restart';
  await namespace(ns);
  const dropped: DropReason[] = [];
  let recorded = 0;
  const recorder = new EventRecorder(client, {
    baseDelayMs: 200,
    maxDelayMs: 2000,
    maxAttempts: 60,
    onDropped: (reason) => dropped.push(reason),
    onRecorded: () => recorded++,
  });
  await cp.stopApiServer();
  try {
    recorder.record({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: 'restart.', namespace: ns },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: ns },
      type: 'Normal',
      reason: 'AcrossRestart',
      message: 'recorded while the API server was down',
      firstTimestamp: new Date().toISOString(),
      lastTimestamp: new Date().toISOString(),
      count: 1,
    });
    // The first send meets a closed port; the Event waits in the queue for the retry.
    await waitFor('the Event is queued, not sent', async () => recorder.queued === 1 && recorded === 0, {
      timeoutMs: 2000,
    });
  } finally {
    await cp.startApiServer();
  }
  await waitFor(
    'the Event arrived',
    async () => {
      assert.deepEqual(dropped, [], 'the recorder dropped the Event');
      return (await eventsOf(ns, 'settings')).some((e) => e.reason === 'AcrossRestart');
    },
    {
      timeoutMs: 60_000,
    },
  );
  assert.equal(recorded, 1);
  assert.deepEqual(dropped, []);
});
