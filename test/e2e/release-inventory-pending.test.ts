// Nothing untracked (docs/design.md#inventory-parts), end to end against a real kube-apiserver with the
// convoy-controller-manager process: a wave's keys are noted as `pending` in the ReleaseInventory before
// its apply and settled after, so a failure (a custom resource the API rejects after its CRD went in) or a
// crash between apply and record never leaves a live object that no inventory names; the next process
// records or prunes what was pending — any kind, and only objects that carry the Release's own uid. CRDs
// go before their custom resources, even those of an earlier wave, and are waited for until Established.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { startClusterManager, useCrdCluster } from '../support/cluster.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { Recorder } from '../support/recorder.ts';
import {
  cm,
  condition,
  deleteReleaseAndWait,
  getInventory,
  getRelease,
  mergePatch,
  readyWith,
  releaseRef,
  waitForReady,
  wave,
} from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

let manager: ManagerProcess | undefined;
const cluster = useCrdCluster(
  { namespaces: ['convoy-system'], scratch: 'convoy-inventory-pending-e2e-' },
  { tearDown: async () => manager?.stop() },
);
const { client } = cluster;

function startManager(identity: string, env: Record<string, string> = {}) {
  return startClusterManager(cluster, identity, { env });
}

async function namespace(name: string) {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function inlineRelease(ns: string, name: string, manifests: string, pruneCRDs = false): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { inline: { manifests } },
      syncPolicy: { interval: '1s', ...(pruneCRDs ? { pruneCRDs } : {}) },
    },
  };
}

const OPEN_SCHEMA = '{type: object, x-kubernetes-preserve-unknown-fields: true}';
/** spec.size must be an integer, at most 10. */
const STRICT_SCHEMA =
  '{type: object, properties: {spec: {type: object, properties: {size: {type: integer, maximum: 10}}}}}';
/**
 * spec.tags must be the set [a]: the API compares a list-type set ignoring order; convoy's local check
 * cannot, so it leaves this rule to the server's dry run.
 */
const SET_RULE_SCHEMA =
  '{type: object, properties: {spec: {type: object, ' +
  `x-kubernetes-validations: [{rule: "self.tags == ['a']", message: "tags must be the set [a]"}], ` +
  'properties: {tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}}}';

const crd = (plural: string, kind: string, annotations: Record<string, string> = {}, schema = OPEN_SCHEMA) =>
  `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
  annotations: ${JSON.stringify(annotations)}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}, listKind: ${kind}List}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: ${schema}
`;

/** The YAML document of object ns/name of `kind`, with these annotations and then `rest`. */
const namespaced = (
  apiVersion: string,
  kind: string,
  ns: string,
  name: string,
  annotations: Record<string, string>,
  rest = '',
) => `apiVersion: ${apiVersion}
kind: ${kind}
metadata:
  name: ${name}
  namespace: ${ns}
  annotations: ${JSON.stringify(annotations)}
${rest}`;

const cr = (kind: string, name: string, ns: string, annotations: Record<string, string> = {}, size = '1') =>
  namespaced('example.com/v1', kind, ns, name, annotations, `spec: {size: ${size}}\n`);

const inNs = (ns: string, doc: string) => doc.replace('metadata:\n', `metadata:\n  namespace: ${ns}\n`);
const docs = (...d: string[]) => d.join('---\n');
const crdRef = (name: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name,
});
type Meta = {
  metadata: {
    uid?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
};

async function eventsOf(ns: string, name: string) {
  return client.list<{
    reason?: string;
    type?: string;
    message?: string;
    involvedObject?: { name?: string };
  }>({ apiVersion: 'v1', kind: 'Event', namespace: ns }, { fieldSelector: `involvedObject.name=${name}` });
}

/** The manager the tests below share, started by the first that needs it, and a fresh namespace `ns`. */
async function sharedManagerIn(ns: string): Promise<void> {
  manager ??= await startManager('main');
  await namespace(ns);
}

/** Creates Release ns/app of the given YAML documents. */
const createApp = (ns: string, ...documents: string[]) =>
  client.create(inlineRelease(ns, 'app', docs(...documents)));
/** The same with spec.syncPolicy.pruneCRDs: true, so deleting the Release deletes its CRDs too. */
const createAppPruningCrds = (ns: string, ...documents: string[]) =>
  client.create(inlineRelease(ns, 'app', docs(...documents), true));

/** Waits for Release ns/app to be Ready=False DryRunFailed; its Ready condition. */
async function dryRunFailed(ns: string) {
  const r = await waitForReady(
    client,
    ns,
    'app',
    (x) => condition(x, 'Ready')?.status === 'False',
    'Ready=False',
  );
  const ready = condition(r, 'Ready');
  assert.equal(ready?.reason, 'DryRunFailed', JSON.stringify(r.status));
  return { r, ready };
}

/** Nothing of the refused render of ns/app live (ConfigMap c) nor in its inventory; then deletes it. */
async function assertNothingLiveThenDelete(ns: string) {
  assert.equal(
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'c' }),
    undefined,
    'the ConfigMap of the refused render was never applied',
  );
  const inv = await getInventory(client, ns, 'app');
  assert.deepEqual(inv?.entries ?? [], [], 'nothing recorded as live');
  assert.deepEqual(inv?.pending ?? [], [], 'and nothing left pending');
  await deleteReleaseAndWait(client, ns, 'app');
}

/**
 * Runs `body` with a watch of every CRD started before it; when it ends, a sentinel CRD created and
 * deleted marks the end of the watch's window (one watch delivers its events in order), and the CRD
 * events of `name` seen before it are returned.
 */
async function crdEventsDuring(name: string, body: () => Promise<void>): Promise<string[]> {
  const rec = new Recorder(cluster.cp.kubeConfig, [
    { kind: 'CustomResourceDefinition', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' },
  ]);
  return rec.during(async () => {
    await body();
    const sentinel = `sentinels${name.split('.')[0]}.example.com`;
    const plural = sentinel.split('.')[0] ?? '';
    const marker = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: sentinel },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural, kind: 'Sentinel', listKind: 'SentinelList' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    };
    await client.create(marker);
    const end = await rec.seen(`the sentinel CRD ${sentinel}`, (e) => e.name === sentinel);
    await client.delete(crdRef(sentinel));
    return rec.events.filter((e) => e.seq < end && e.name === name).map((e) => `${e.type} ${e.name}`);
  });
}

test('a CRD with its custom resource refused by the local check: the CRD never exists, the condition names the field', async () => {
  const ns = 'pending-crd';
  await sharedManagerIn(ns);
  // The Gadget's spec.size is above its CRD's maximum: the render's CRD refuses it before anything is
  // applied, so neither the CRD nor the ConfigMap is ever created, not even for a dry run.
  const seen = await crdEventsDuring('gadgets.example.com', async () => {
    await createApp(
      ns,
      crd('gadgets', 'Gadget', {}, STRICT_SCHEMA),
      inNs(ns, cm('c', { v: '1' })),
      cr('Gadget', 'g', ns, {}, '99'),
    );
    const { r, ready } = await dryRunFailed(ns);
    assert.match(
      ready?.message ?? '',
      /Gadget\.example\.com pending-crd\/g: spec\.size: must be at most 10, is 99 \(checked against CustomResourceDefinition gadgets\.example\.com/,
      ready?.message,
    );
    assert.equal(condition(r, 'Stalled')?.status, 'True', 'a retry cannot help until the render changes');
    await waitFor('the DryRunFailed Event', async () =>
      (await eventsOf(ns, 'app')).some(
        (e) => e.reason === 'DryRunFailed' && /spec\.size/.test(e.message ?? ''),
      ),
    );
  });
  assert.deepEqual(seen, [], 'no watch event of the CRD: it was never created');
  await assertNothingLiveThenDelete(ns);
});

test('a rule the local check leaves to the API: the CRD goes in for the dry run and is removed again', async () => {
  const ns = 'pending-crd-server';
  await sharedManagerIn(ns);
  await createApp(
    ns,
    crd('widgets', 'Widget', {}, SET_RULE_SCHEMA),
    inNs(ns, cm('c', { v: '1' })),
    namespaced('example.com/v1', 'Widget', ns, 'w', {}, 'spec: {tags: [b]}\n'),
  );
  const { ready } = await dryRunFailed(ns);
  assert.match(ready?.message ?? '', /Widget.*\bw\b.*tags must be the set \[a\]/, ready?.message);
  await waitFor('the CRD the dry run put in removed again', async () => {
    const live = await client.get<Meta>(crdRef('widgets.example.com'));
    return live === undefined || live.metadata.deletionTimestamp !== undefined;
  });
  // A retry while that CRD terminates says the same, not "create not allowed while … terminating".
  const later = condition(await getRelease(client, ns, 'app'), 'Ready');
  assert.match(later?.message ?? '', /tags must be the set \[a\]/, later?.message);
  await assertNothingLiveThenDelete(ns);
});

test('a CRD of a later wave than its custom resource applies first, in one go', async () => {
  const ns = 'pending-crd-order';
  await sharedManagerIn(ns);
  await createAppPruningCrds(
    ns,
    cr('Sprocket', 's', ns, wave(0)),
    crd('sprockets', 'Sprocket', wave(2)),
    inNs(ns, cm('c', { v: '1' }, wave(1))),
  );
  const r = await waitForReady(client, ns, 'app', readyWith(), 'Ready');
  assert.equal(r.status?.lastAttempted?.applied, true);
  const events = await eventsOf(ns, 'app');
  assert.ok(
    !events.some((e) => e.type === 'Warning'),
    `no failed attempt before: ${JSON.stringify(events.map((e) => [e.reason, e.message]))}`,
  );
  const inv = await getInventory(client, ns, 'app');
  assert.deepEqual(
    inv?.entries?.map((e) => [e.kind, e.wave]).sort(),
    [
      ['ConfigMap', 1],
      ['CustomResourceDefinition', 0],
      ['Sprocket', 0],
    ],
    'the CRD is applied (and recorded) in the wave of its custom resource',
  );
  assert.equal(inv?.pending, undefined);
  assert.ok(await client.get({ apiVersion: 'example.com/v1', kind: 'Sprocket', namespace: ns, name: 's' }));
  await deleteReleaseAndWait(client, ns, 'app');
  await waitFor(
    'the CRD deleted with the Release that opted in with pruneCRDs',
    async () => (await client.get(crdRef('sprockets.example.com'))) === undefined,
    { timeoutMs: 60_000 },
  );
});

test("helm.sh/resource-policy: keep and convoy's prune: disabled keep an object through prune and deletion", async () => {
  const ns = 'pending-keep';
  await sharedManagerIn(ns);
  const data = 'data: {k: v}\n';
  const helmKeep = namespaced(
    'v1',
    'ConfigMap',
    ns,
    'helm-keep',
    { 'helm.sh/resource-policy': 'keep' },
    data,
  );
  const convoyKeep = namespaced(
    'v1',
    'ConfigMap',
    ns,
    'convoy-keep',
    { 'convoy.kumodo.io/prune': 'disabled' },
    data,
  );
  const plain = (name: string) => namespaced('v1', 'ConfigMap', ns, name, {}, data);
  await createApp(ns, helmKeep, convoyKeep, plain('left'), plain('stays'));
  await waitForReady(client, ns, 'app', readyWith(), 'Ready');
  const ref = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
  // 'left' and the Helm-kept object leave the render: the prune deletes only 'left'
  await mergePatch(client, releaseRef(ns, 'app'), {
    spec: { source: { inline: { manifests: docs(convoyKeep, plain('stays')) } } },
  });
  await waitFor(
    'the ConfigMap that left the render pruned',
    async () => (await client.get(ref('left'))) === undefined,
  );
  assert.ok(await client.get(ref('helm-keep')), 'helm.sh/resource-policy: keep outlives the prune');
  await deleteReleaseAndWait(client, ns, 'app');
  assert.equal(await client.get(ref('stays')), undefined, 'deletion deletes the rest');
  assert.ok(await client.get(ref('convoy-keep')), 'prune: disabled outlives the Release');
  assert.ok(await client.get(ref('helm-keep')), 'and so does the Helm-kept object');
});

test('killed between applying a wave and recording it: the next process records what stays and prunes what left, any kind, never on the label alone', async () => {
  await manager?.stop();
  manager = undefined;
  const ns = 'pending-crash';
  await namespace(ns);
  const secret = (name: string, annotations: Record<string, string>) =>
    namespaced('v1', 'Secret', ns, name, annotations, 'stringData: {k: v}\n');
  const sa = (name: string, annotations: Record<string, string>) =>
    namespaced('v1', 'ServiceAccount', ns, name, annotations);
  const a = inNs(ns, cm('a', { v: '1' }, wave(0)));
  const b = inNs(ns, cm('b', { v: '1' }, wave(1)));
  await createApp(ns, a, b, secret('s', wave(1)), sa('taken', wave(1)));
  const crashing = await startManager('crash', { CONVOY_TEST_CRASH_AFTER_WAVE_APPLY: '1' });
  try {
    let exitCode: number | string | undefined;
    void crashing.exited.then((c) => {
      exitCode = c;
    });
    const code = await waitFor(
      'the controller to exit after applying wave 1',
      async () => exitCode ?? false,
      {
        timeoutMs: 60_000,
      },
    );
    assert.equal(code, 137, crashing.log().slice(-3000));
  } finally {
    await crashing.stop();
  }
  const release = await getRelease(client, ns, 'app');
  const uid = release?.metadata.uid ?? '';
  // wave 1 is live and named by the inventory: pending, not yet recorded
  const inv = await getInventory(client, ns, 'app');
  assert.deepEqual(
    inv?.entries?.map((e) => e.name),
    ['a'],
  );
  assert.deepEqual(inv?.pending?.map((e) => `${e.kind}/${e.name}`).sort(), [
    'ConfigMap/b',
    'Secret/s',
    'ServiceAccount/taken',
  ]);
  const liveSecret = await client.get<Meta>({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 's' });
  assert.equal(liveSecret?.metadata.annotations?.['convoy.kumodo.io/release-uid'], uid);
  // Someone else's now: another Release (another uid) applied the ServiceAccount since. The label still
  // says this Release; the uid says otherwise, and the uid is what counts.
  const saRef = { apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'taken' };
  await mergePatch(client, saRef, {
    metadata: { annotations: { 'convoy.kumodo.io/release-uid': 'another-release-uid' } },
  });

  // The Secret and the ServiceAccount leave the render (no object of either kind stays in it) while the
  // controller is down.
  await mergePatch(client, releaseRef(ns, 'app'), {
    spec: { source: { inline: { manifests: docs(a, b) } } },
  });
  manager = await startManager('main');
  const r = await waitForReady(
    client,
    ns,
    'app',
    (x) =>
      readyWith()(x) && x.status?.lastSuccessful?.renderRef !== release?.status?.lastAttempted?.renderRef,
    'Ready with the new render',
  );
  const R2 = r.status?.lastSuccessful?.renderRef;
  await waitFor(
    'the pending Secret pruned',
    async () =>
      (await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 's' })) === undefined,
  );
  const inv2 = await getInventory(client, ns, 'app');
  assert.deepEqual(inv2?.entries?.map((e) => [e.name, e.renderRef]).sort(), [
    ['a', R2],
    ['b', R2],
  ]);
  assert.equal(inv2?.pending, undefined, 'nothing left pending');
  const taken = await client.get<Meta>(saRef);
  assert.equal(taken?.metadata.annotations?.['convoy.kumodo.io/release-uid'], 'another-release-uid');
  for (const want of [
    /pruned 1 objects an interrupted sync applied/,
    /left 1 objects that an interrupted sync noted in place: convoy's field manager did not set their convoy.kumodo.io\/release-uid/,
  ]) {
    await waitFor(`an Event: ${want}`, async () =>
      (await eventsOf(ns, 'app')).some((e) => want.test(e.message ?? '')),
    );
  }
});
