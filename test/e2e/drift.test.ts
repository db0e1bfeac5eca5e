// The observer's drift loop end to end: convoy-controller-manager and convoy-observer run as child
// processes against the real control plane (kwok runs the pods). Someone scales a Deployment, edits a
// ConfigMap and a Secret, deletes a Service: Drifted=True names each object and path and driftSummary
// counts them; without selfHeal it stays so and nothing is re-applied; with selfHeal the controller
// re-applies (woken through POST /sync) and Drifted goes back to False. Fields convoy does not set (an
// annotation someone adds, everything the API server defaults) are not drift, and a steady pass writes
// nothing. The Releases' interval is 10m, so the controller acts only on spec changes and wake-ups; the
// drift loop runs every 2s (CONVOY_DRIFT_INTERVAL, inherited by the observer process). A Release of many
// ConfigMaps is read in bulk (from the watch cache, or one LIST by its release label per pass), and a
// ConfigMap whose label someone removed is still read (by GET) and drifted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION, LABEL_RELEASE } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import {
  condition,
  getInventory,
  getRelease,
  mergePatch,
  releaseOf,
  releaseRef,
} from '../support/release.ts';
import { events } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

process.env.CONVOY_DRIFT_INTERVAL = '2s';

const NS = 'drift';
const PASSWORD = 'hunter2';
const EDITED_PASSWORD = 'correct-horse';

// Quantities and ports in the forms people write, not the forms the API server stores: they must not drift.
const MANIFESTS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
        resources:
          limits: {cpu: 1000m, memory: 1024Mi}
          requests: {cpu: 0.5, memory: 64Mi}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {color: blue}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: ${PASSWORD}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;

const env = convoySystemPerFile({
  identity: 'drift',
  async setUp(sys) {
    await sys.namespace(NS);
    const release: Release = {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name: 'app', namespace: NS },
      spec: {
        source: { inline: { manifests: MANIFESTS } },
        render: { targetNamespace: NS },
        syncPolicy: { interval: '10m' },
      },
    };
    await sys.client.create(release);
  },
});

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, namespace: NS, name });
const DEPLOYMENT = ref('apps/v1', 'Deployment', 'web');
const CONFIGMAP = ref('v1', 'ConfigMap', 'settings');
const SECRET = ref('v1', 'Secret', 'creds');
const SERVICE = ref('v1', 'Service', 'web');

const drifted = (r: Release) => condition(r, 'Drifted');
const metric = (name: string, labels?: Record<string, string>) => env.observer.metric(name, labels);

/** Waits until the drift loop has run `n` more passes (each reads every object again). */
async function morePasses(n: number): Promise<void> {
  const start = await metric('convoy_drift_passes_total');
  await waitFor(
    `${n} more drift passes`,
    async () => (await metric('convoy_drift_passes_total')) >= start + n,
    {
      timeoutMs: 60_000,
      intervalMs: 250,
    },
  );
}

async function entry(name: string, kind: string) {
  return (await getInventory(env.client, NS, 'app'))?.entries?.find(
    (e) => e.kind === kind && e.name === name,
  );
}

async function replicas(): Promise<number | undefined> {
  return (await env.client.get<{ spec: { replicas?: number } }>(DEPLOYMENT))?.spec.replicas;
}

test('after the sync every object is in sync, with the server’s defaults and canonical forms; a steady pass writes nothing', async () => {
  const r = await env.waitForRelease(
    NS,
    'app',
    'Drifted=False InSync over 4 objects, and Healthy=True',
    (x) =>
      drifted(x)?.status === 'False' &&
      drifted(x)?.reason === 'InSync' &&
      x.status?.driftSummary?.total === 4 &&
      x.status.driftSummary.drifted === 0 &&
      // "untouched" below is about the drift loop: it starts after the health loop's first write.
      condition(x, 'Healthy')?.status === 'True',
  );
  assert.equal(drifted(r)?.message, '4 of 4 objects in sync');
  const inv = await getInventory(env.client, NS, 'app');
  assert.deepEqual(inv?.entries?.map((e) => [e.kind, e.drifted, e.driftMessage]).sort(), [
    // in sync: no drift fields at all (docs/reference/release-inventory.md)
    ['ConfigMap', undefined, undefined],
    ['Deployment', undefined, undefined],
    ['Secret', undefined, undefined],
    ['Service', undefined, undefined],
  ]);
  // The API server stored its canonical forms, not the render's: the check above compared across them.
  const live = await env.client.get<{
    spec: { template: { spec: { containers: { resources: Record<string, Record<string, string>> }[] } } };
  }>(DEPLOYMENT);
  assert.deepEqual(live?.spec.template.spec.containers[0]?.resources, {
    limits: { cpu: '1', memory: '1Gi' },
    requests: { cpu: '500m', memory: '64Mi' },
  });
  const writes = await metric('convoy_drift_writes_total');
  const before = await getRelease(env.client, NS, 'app');
  await morePasses(3);
  assert.equal(await metric('convoy_drift_writes_total'), writes, 'steady passes write nothing');
  const after = await getRelease(env.client, NS, 'app');
  assert.equal(
    after?.metadata.resourceVersion,
    before?.metadata.resourceVersion,
    `the Release is untouched; its writers before and after: ${JSON.stringify(
      [before, after].map((r) => r?.metadata.managedFields?.map((m) => [m.manager, m.subresource, m.time])),
    )}\nstatus after: ${JSON.stringify(after?.status)}`,
  );
});

test('fields convoy does not set are not drift: an annotation and a label someone adds', async () => {
  await mergePatch(env.client, CONFIGMAP, { metadata: { annotations: { 'team.example.com/owner': 'ops' } } });
  await mergePatch(env.client, DEPLOYMENT, { metadata: { labels: { 'team.example.com/tier': 'frontend' } } });
  const writes = await metric('convoy_drift_writes_total');
  await morePasses(3);
  const r = await getRelease(env.client, NS, 'app');
  assert.equal(drifted(r as Release)?.status, 'False', drifted(r as Release)?.message);
  assert.equal(await metric('convoy_drift_writes_total'), writes);
});

test('without selfHeal: scaled, edited and deleted objects are Drifted=True by path, and stay so; nothing is re-applied', async () => {
  const before = await getRelease(env.client, NS, 'app');
  const attemptAt = before?.status?.lastAttempted?.time;
  assert.ok(attemptAt !== undefined);
  await mergePatch(env.client, DEPLOYMENT, { spec: { replicas: 5 } });
  await mergePatch(env.client, CONFIGMAP, { data: { color: 'red' } });
  await mergePatch(env.client, SECRET, { stringData: { password: EDITED_PASSWORD } });
  await env.client.request({ method: 'DELETE', path: await env.client.pathOf(SERVICE) });

  const r = await env.waitForRelease(
    NS,
    'app',
    'Drifted=True over 4 of 4 objects',
    (x) => drifted(x)?.status === 'True' && x.status?.driftSummary?.drifted === 4,
  );
  const cond = drifted(r);
  assert.equal(cond?.reason, 'Drifted');
  assert.deepEqual(r.status?.driftSummary, { drifted: 4, total: 4 });
  assert.match(cond?.message ?? '', /^4 of 4 objects drifted: /);
  assert.match(cond?.message ?? '', /, and 1 more$/, 'three objects listed, the rest counted');
  assert.equal((await entry('web', 'Deployment'))?.driftMessage, 'spec.replicas: 2 → 5');
  assert.equal((await entry('settings', 'ConfigMap'))?.driftMessage, 'data.color: "blue" → "red"');
  assert.equal((await entry('web', 'Service'))?.driftMessage, 'deleted');
  const secret = await entry('creds', 'Secret');
  assert.equal(secret?.drifted, true);
  assert.equal(secret?.driftMessage, 'data.password differs');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  for (const leak of [PASSWORD, EDITED_PASSWORD, b64(PASSWORD), b64(EDITED_PASSWORD)]) {
    assert.ok(!(cond?.message ?? '').includes(leak), 'no Secret value in the condition');
  }
  for (const part of [
    'Deployment web (spec.replicas: 2 → 5)',
    'ConfigMap settings (data.color: "blue" → "red")',
  ]) {
    if ((cond?.message ?? '').includes(part)) continue;
    // The condition lists three of the four; whichever it left out is counted in "and 1 more".
    assert.ok(
      ['Secret creds (data.password differs)', 'Service web (deleted)'].every((p) =>
        cond?.message?.includes(p),
      ),
      cond?.message,
    );
  }

  const writes = await metric('convoy_drift_writes_total');
  await morePasses(3);
  const still = await getRelease(env.client, NS, 'app');
  assert.equal(drifted(still as Release)?.status, 'True');
  assert.equal(still?.status?.lastAttempted?.time, attemptAt, 'the controller did not sync again');
  assert.equal(await replicas(), 5, 'the Deployment is left as scaled');
  assert.equal(await env.client.get(SERVICE), undefined, 'the Service is not re-created');
  assert.equal(await metric('convoy_drift_sync_requests_total'), 0, 'no wake-up without selfHeal');
  assert.equal(
    await metric('convoy_drift_writes_total'),
    writes,
    'a steady drifted state writes nothing either',
  );
});

test('with selfHeal the controller re-applies, every drifted object is restored, and Drifted goes back to False', async () => {
  await mergePatch(env.client, releaseRef(NS, 'app'), { spec: { syncPolicy: { selfHeal: true } } });
  const r = await env.waitForRelease(
    NS,
    'app',
    'Drifted=False after the heal',
    (x) => drifted(x)?.status === 'False' && x.status?.driftSummary?.drifted === 0,
  );
  assert.equal(drifted(r)?.reason, 'InSync');
  assert.equal(await replicas(), 2);
  const cm = await env.client.get<{ data?: Record<string, string> }>(CONFIGMAP);
  assert.equal(cm?.data?.color, 'blue');
  const secret = await env.client.get<{ data?: Record<string, string> }>(SECRET);
  assert.equal(Buffer.from(secret?.data?.password ?? '', 'base64').toString(), PASSWORD);
  assert.ok(await env.client.get(SERVICE), 'the Service is re-created');
  assert.equal(
    (cm as { metadata?: { annotations?: Record<string, string> } })?.metadata?.annotations?.[
      'team.example.com/owner'
    ],
    'ops',
    'a field convoy does not own survives the re-apply',
  );
  // The heal leaves a trace where users look: an Event naming what was re-applied.
  const heal = await waitFor('the self-heal Event', async () =>
    (await events(env.client, NS, 'app')).find((e) => e.message?.startsWith('self-heal: re-applying')),
  );
  assert.match(heal.message ?? '', /re-applying 4 drifted objects \(.*Deployment drift\/web.*\)/);
});

test('with selfHeal, new drift wakes the controller through POST /sync and is healed', async () => {
  const requests = await metric('convoy_drift_sync_requests_total');
  const before = await getRelease(env.client, NS, 'app');
  const wakeAt = before?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  await mergePatch(env.client, DEPLOYMENT, { spec: { replicas: 7 } });
  await waitFor(
    'the drift loop asked for a sync',
    async () => (await metric('convoy_drift_sync_requests_total')) > requests,
    {
      timeoutMs: 60_000,
      intervalMs: 250,
    },
  );
  await waitFor('the Deployment scaled back to 2', async () => (await replicas()) === 2, {
    timeoutMs: 60_000,
  });
  const r = await env.waitForRelease(NS, 'app', 'Drifted=False again', (x) => drifted(x)?.status === 'False');
  assert.notEqual(
    r.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT],
    wakeAt,
    'the wake-up went through /sync',
  );
  assert.equal(r.metadata.generation, before?.metadata.generation, 'no spec change woke the controller');
});

const MANY = 25; // above the drift loop's default LIST threshold (20 entries of one kind and namespace)
const manyManifests = Array.from(
  { length: MANY },
  (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-${i}}\ndata: {i: "${i}"}\n`,
).join('---\n');

test('a Release with many objects of one kind is read in bulk, not by a GET each; one whose release label someone removed is still read and drifted', async () => {
  // Until now no Release had that many objects of one kind: nothing was listed.
  assert.equal(await metric('convoy_drift_object_reads_total', { verb: 'list' }), 0);
  // Read in bulk: listed, or from the observer's watch cache (docs/design.md#watched-reads) — with the
  // resourceVersion each apply returned recorded in the inventory, a first pass needs no read of its own.
  const bulk = async () =>
    (await metric('convoy_drift_object_reads_total', { verb: 'list' })) +
    (await metric('convoy_observer_live_reads_total', { from: 'cache' }));
  const bulkAtStart = await bulk();
  const getsAtStart = await metric('convoy_drift_object_reads_total', { verb: 'get' });
  await env.client.create(
    releaseOf(NS, 'many', {
      source: { inline: { manifests: manyManifests } },
      render: { targetNamespace: NS },
      syncPolicy: { interval: '10m' },
    }),
  );
  await env.waitForRelease(
    NS,
    'many',
    `Drifted=False InSync over ${MANY} objects`,
    (x) => drifted(x)?.reason === 'InSync' && x.status?.driftSummary?.total === MANY,
  );
  const gets = (await metric('convoy_drift_object_reads_total', { verb: 'get' })) - getsAtStart;
  assert.ok(gets < MANY, `${gets} GETs: the ConfigMaps are read in bulk, not by a GET each`);
  assert.ok((await bulk()) > bulkAtStart, 'listed, or read from the watch cache');

  // 'app' takes 4 GETs a pass (four kinds, one object each) and 'many' one LIST: no pass reads more than 4.
  // A GET per object would take 25 for each pass of 'many'. Slack: up to two passes counted their reads
  // but not yet themselves when the window closes.
  const reads = await metric('convoy_drift_object_reads_total');
  const passes = await metric('convoy_drift_passes_total');
  await morePasses(8);
  const readDelta = (await metric('convoy_drift_object_reads_total')) - reads;
  const passDelta = (await metric('convoy_drift_passes_total')) - passes;
  assert.ok(readDelta <= 4 * passDelta + 5, `${readDelta} reads in ${passDelta} passes`);

  // The others are still read from the watch cache, or listed.
  const bulkBefore = await bulk();
  await mergePatch(env.client, ref('v1', 'ConfigMap', 'many-7'), {
    metadata: { labels: { [LABEL_RELEASE]: null } },
  });
  const r = await env.waitForRelease(
    NS,
    'many',
    `Drifted=True over 1 of ${MANY} objects`,
    (x) => drifted(x)?.status === 'True' && x.status?.driftSummary?.drifted === 1,
  );
  assert.deepEqual(r.status?.driftSummary, { drifted: 1, total: MANY });
  const e = (await getInventory(env.client, NS, 'many'))?.entries?.find((x) => x.name === 'many-7');
  assert.equal(e?.drifted, true);
  assert.equal(
    e?.driftMessage,
    `metadata.labels["${LABEL_RELEASE}"]: "${NS}.many" → (missing)`,
    'found by its GET, not reported deleted',
  );
  assert.ok((await bulk()) > bulkBefore, 'the other 24 are still read in bulk, not by a GET each');
});
