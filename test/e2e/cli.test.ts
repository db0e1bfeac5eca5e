// The convoy CLI against a real kube-apiserver, run as a child process the way users and CI run it.
// The controller is not running here: the test writes Release status and ReleaseInventory itself
// (SSA, status subresource) and checks the human output of every command, the objects the writing
// commands leave behind, and watch's exit codes. The convoy API group is not registered on this
// control plane, so sync/approve take (and announce) the direct annotation path.
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
  ANNOTATION_SYNC_REQUESTED_AT,
  API_VERSION,
} from '../../src/api/constants.ts';
import { deploymentEntry } from '../../src/api/testsupport.ts';
import type { InventoryEntry, Release, ReleaseInventory, ReleaseStatus } from '../../src/api/types.ts';
import { CONVOY_LAUNCHER, runConvoy, startConvoy } from '../../src/cli/testsupport.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { renderRef as renderRefOf } from '../../src/render/canonical.ts';
import { renderRelease } from '../../src/render/release.ts';
import { SecretRenderStore } from '../../src/store/secrets.ts';
import type { Render } from '../../src/store/types.ts';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';

const cluster = useCrdCluster({ scratch: 'convoy-cli-e2e-' });
const { cp, client } = cluster;
const store = new SecretRenderStore(client);

const convoy = (...args: string[]) => runConvoy([...args, '--kubeconfig', cp.kubeconfigPath]);
const T0 = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function namespace(name: string) {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function cmRender(ns: string, tag: string, extra: Record<string, string> = {}): Render {
  return {
    hooks: [],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: ns },
        data: { tag, ...extra },
      },
    ],
  };
}

async function createRelease(
  ns: string,
  name: string,
  spec: Partial<Release['spec']> = {},
): Promise<Release> {
  return client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n' } },
      ...spec,
    },
  } as Release);
}

async function writeStatus(ns: string, name: string, status: ReleaseStatus): Promise<void> {
  const r = await getRelease(ns, name);
  await applyObject(
    client,
    { apiVersion: API_VERSION, kind: 'Release', metadata: { name, namespace: ns }, status } as Release,
    { fieldManager: 'convoy-controller', subresource: 'status', force: true },
  );
  assert.ok(r);
}

async function writeInventory(ns: string, name: string, body: Pick<ReleaseInventory, 'entries' | 'hooks'>) {
  await applyObject(
    client,
    { apiVersion: API_VERSION, kind: 'ReleaseInventory', metadata: { name, namespace: ns }, ...body },
    { fieldManager: 'convoy-controller', force: true },
  );
}

function getRelease(ns: string, name: string): Promise<Release | undefined> {
  return client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: ns, name });
}

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T0,
  observedGeneration: 1,
});

/** The inventory entry of ConfigMap cfg (wave 0) of render `renderRef`, assessed `state` for it. */
const cfgEntry = (
  ns: string,
  renderRef: string,
  state: InventoryEntry['state'],
  extra: Partial<InventoryEntry> = {},
): InventoryEntry => ({
  group: '',
  kind: 'ConfigMap',
  namespace: ns,
  name: 'cfg',
  wave: 0,
  renderRef,
  state,
  assessedRenderRef: renderRef,
  ...extra,
});

const ref = (n: number) => `sha256:${String(n).repeat(64)}`;

test('get, list -A, status, health and history print what the cluster holds', async () => {
  const ns = 'cli-read';
  await namespace(ns);
  await namespace('cli-read-2');
  const R1 = renderRefOf(cmRender(ns, 'one'));
  const R2 = renderRefOf(cmRender(ns, 'two'));
  await store.put(ns, 'web', R1, cmRender(ns, 'one'), { revision: 'rev-1' });
  await store.put(ns, 'web', R2, cmRender(ns, 'two'), { revision: 'rev-2' });
  await createRelease(ns, 'web', { healthAssessment: {}, failurePolicy: { deadline: '10m' } });
  await createRelease('cli-read-2', 'other');
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R2, revision: 'rev-2' },
    lastAttempted: { renderRef: R2, revision: 'rev-2', time: T0, applied: true },
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: T0 },
    rollout: { state: 'Progressing', renderRef: R2, revision: 'rev-2', startedAt: T0 },
    waves: [
      { renderRef: R2, wave: 0, startedAt: T0, completedAt: T0 },
      { renderRef: R2, wave: 1, startedAt: T0 },
    ],
    history: [
      // an older render whose rollout was rolled back, then R1's that succeeded (the controller
      // records how each ended on its entry)
      {
        renderRef: renderRefOf(cmRender(ns, 'zero')),
        revision: 'rev-0',
        appliedAt: T0,
        result: 'RolledBack',
        reason: 'DeadlineExceeded',
      },
      { renderRef: R1, revision: 'rev-1', appliedAt: T0, result: 'Succeeded', reason: 'Healthy' },
      { renderRef: R2, revision: 'rev-2', appliedAt: T0 },
    ],
    conditions: [
      cond('Ready', 'False', 'WaitingForWaveHealth', 'wave 1 is not Healthy yet'),
      cond('Healthy', 'Unknown', 'Progressing', '1 of 2 objects progressing'),
    ],
  });
  await writeInventory(ns, 'web', {
    entries: [
      cfgEntry(ns, R2, 'Healthy', { message: 'exists' }),
      deploymentEntry(ns, 'web', 1, R2, {
        state: 'Progressing',
        assessedRenderRef: R2,
        message: 'available 1 of 3',
      }),
    ],
    hooks: [
      {
        name: 'migrate',
        phase: 'PreSync',
        kind: 'Job',
        renderRef: R2,
        workloadName: 'migrate-x',
        createdAt: T0,
        state: 'Succeeded',
        finishedAt: T0,
      },
    ],
  });

  const get = await convoy('get', '-n', ns);
  assert.equal(get.code, 0, get.stderr);
  const getLines = get.stdout.trimEnd().split('\n');
  // The one state and health of each Release (releaseState, as the web UI shows them).
  assert.match(getLines[0] ?? '', /^NAME +STATE +HEALTH +REVISION +AGE +MESSAGE$/);
  assert.match(getLines[1] ?? '', /^web +Progressing +Progressing +rev-2 +\d+s$/);
  assert.equal(getLines.length, 2);

  const all = await convoy('list', '-A');
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /^NAMESPACE +NAME +STATE/m);
  assert.match(all.stdout, /^cli-read +web +Progressing +Progressing +rev-2/m);
  assert.match(all.stdout, /^cli-read-2 +other +Pending +- +- /m);
  const failing = await convoy('get', '-A', '--status-selector', 'ready=false');
  assert.equal(failing.code, 0, failing.stderr);
  assert.match(failing.stdout, /^cli-read +web /m);
  assert.doesNotMatch(failing.stdout, /other/);

  const asJson = await convoy('get', 'web', '-n', ns, '-o', 'json');
  const parsed = JSON.parse(asJson.stdout) as Release;
  assert.equal(parsed.status?.rollout?.state, 'Progressing');
  assert.equal(parsed.metadata.managedFields, undefined, 'managedFields are left out, as kubectl does');

  const missing = await convoy('status', 'nope', '-n', ns);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /release "nope" not found in namespace "cli-read"/);

  const status = await convoy('status', 'web', '-n', ns);
  assert.equal(status.code, 0, status.stderr);
  const s = status.stdout;
  assert.match(s, /^Release: +cli-read\/web$/m);
  assert.match(s, /^Rollout: +Progressing sha256:[0-9a-f]{12} revision rev-2, started 1\dm ago$/m);
  assert.match(s, /^Last healthy: +sha256:[0-9a-f]{12} revision rev-1, 1\dm ago$/m);
  assert.match(s, /^ {2}0 +1\dm ago +1\dm ago +1\/1$/m);
  assert.match(s, /^ {2}1 +1\dm ago +- +0\/1$/m);
  assert.match(s, /^ {2}migrate +PreSync +Succeeded +Job\/migrate-x/m);
  assert.match(s, /^ {2}Ready +False +WaitingForWaveHealth +1\dm +wave 1 is not Healthy yet$/m);
  const progressLine =
    /^Progress: +(Progressing sha256:[0-9a-f]{12} · waves 1\/2 done \(at wave 1\) · .*)$/m.exec(s)?.[1];
  assert.ok(progressLine !== undefined, s);
  assert.match(progressLine, /objects 1\/2 Healthy · hooks 1 Succeeded/);

  const health = await convoy('health', 'web', '-n', ns);
  assert.equal(health.code, 0, health.stderr);
  assert.match(health.stdout, /^Healthy: +Unknown \(Progressing\): 1 of 2 objects progressing$/m);
  assert.match(health.stdout, /^Objects: +1\/2 healthy, 1 progressing, 0 degraded, 0 unknown$/m);
  assert.match(health.stdout, /^0 +ConfigMap cli-read\/cfg +Healthy +exists$/m);
  assert.match(health.stdout, /^1 +apps\/Deployment cli-read\/web +Progressing +available 1 of 3$/m);
  // One progress summary: health (the API's view) and tree print the line status printed.
  assert.ok(health.stdout.includes(`Progress:     ${progressLine}`), health.stdout);
  const tree = await convoy('tree', 'web', '-n', ns);
  assert.equal(tree.code, 0, tree.stderr);
  assert.ok(tree.stdout.includes(progressLine), tree.stdout);
  assert.match(tree.stdout, /PreSync hooks\n└─ Job\/migrate-x +\(migrate\) +Succeeded/);
  assert.match(tree.stdout, /Wave 0 \(done\)\n└─ ConfigMap cli-read\/cfg +Healthy/);
  assert.match(
    tree.stdout,
    /Wave 1 \(in progress\)\n└─ apps\/Deployment cli-read\/web +Progressing +- +available 1 of 3/,
  );

  const history = await convoy('history', 'web', '-n', ns);
  assert.equal(history.code, 0, history.stderr);
  const h = history.stdout.split('\n');
  assert.match(h[0] ?? '', /^RENDER +REVISION +APPLIED +RESULT +STORED +TRIGGERED BY +NOTES$/);
  // The status here is written by the test, without triggers: unknown, as for entries of an older convoy.
  assert.match(
    h[1] ?? '',
    new RegExp(`^${R2.slice(0, 19)} +rev-2 +1\\dm ago +Progressing +yes +unknown \\(.*\\) +current$`),
  );
  assert.match(
    h[2] ?? '',
    new RegExp(
      `^${R1.slice(0, 19)} +rev-1 +1\\dm ago +Succeeded \\(Healthy\\) +yes +unknown \\(.*\\) +last healthy$`,
    ),
  );
  assert.match(
    h[3] ?? '',
    /^sha256:[0-9a-f]{12} +rev-0 +1\dm ago +RolledBack \(DeadlineExceeded\) +no +unknown \(.*\)$/,
  );
});

test('sync writes the annotations as convoy-api (directly, announced) and says a forced sync is consumed', async () => {
  const ns = 'cli-sync';
  await namespace(ns);
  await createRelease(ns, 'web');

  const plain = await convoy('sync', 'web', '-n', ns);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(
    plain.stderr,
    /convoy API \(api\.convoy\.kumodo\.io\/v1alpha1\) is not registered.*writing the sync annotations directly as convoy-api/,
  );
  assert.match(
    plain.stdout,
    /^sync requested for cli-sync\/web at \S+ \(by writing the annotations directly\)$/m,
  );
  const r1 = await getRelease(ns, 'web');
  const first = r1?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  assert.ok(first);
  assert.equal(r1?.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT], undefined);

  const forced = await convoy('sync', 'web', '-n', ns, '--force', '--direct');
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(forced.stderr, '', '--direct needs no note');
  assert.match(forced.stdout, /consumed by that reconcile even if it fails/);
  const r2 = await getRelease(ns, 'web');
  const a = r2?.metadata.annotations ?? {};
  assert.ok(a[ANNOTATION_FORCE_SYNC_AT]);
  assert.ok((a[ANNOTATION_SYNC_REQUESTED_AT] ?? '') > first, 'each sync moves sync-requested-at forward');
  const api = r2?.metadata.managedFields?.find((m) => m.manager === 'convoy-api');
  assert.ok(api, 'written by the convoy-api field manager');
  assert.match(JSON.stringify(api.fieldsV1), /force-sync-at/);
});

test('pin, unpin and rollback set spec.pin as convoy-cli and say how to undo', async () => {
  const ns = 'cli-pin';
  await namespace(ns);
  const R1 = renderRefOf(cmRender(ns, 'one'));
  await store.put(ns, 'web', R1, cmRender(ns, 'one'), { revision: 'rev-1' });
  await createRelease(ns, 'web');

  const none = await convoy('rollback', 'web', '-n', ns);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no last healthy render \(status.lastHealthy\): nothing to roll back to/);

  const unknown = await convoy('pin', 'web', ref(7), '-n', ns);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /is not in the render store of cli-pin\/web/);
  assert.equal((await getRelease(ns, 'web'))?.spec.pin, undefined);

  // Human lines show the short id (sha256: and 12 hex digits), which every command accepts back.
  const short1 = R1.slice(0, 'sha256:'.length + 12);
  const pin = await convoy('pin', 'web', R1, '-n', ns);
  assert.equal(pin.code, 0, pin.stderr);
  assert.match(pin.stdout, new RegExp(`^pinned cli-pin/web to render ${short1}$`, 'm'));
  assert.match(pin.stdout, /^Undo: convoy unpin web -n cli-pin$/m);
  let r = await getRelease(ns, 'web');
  assert.equal(r?.spec.pin?.renderRef, R1);
  assert.ok(
    r?.metadata.managedFields?.some(
      (m) => m.manager === 'convoy-cli' && JSON.stringify(m.fieldsV1).includes('f:pin'),
    ),
  );

  const unpin = await convoy('unpin', 'web', '-n', ns);
  assert.equal(unpin.code, 0, unpin.stderr);
  assert.match(unpin.stdout, new RegExp(`unpinned cli-pin/web \\(was pinned to ${short1}\\); convoy`));
  assert.match(unpin.stdout, new RegExp(`^Undo: convoy pin web ${short1} -n cli-pin$`, 'm'));
  // the undo it prints works as printed
  assert.equal((await convoy('pin', 'web', short1, '-n', ns)).code, 0);
  assert.equal((await getRelease(ns, 'web'))?.spec.pin?.renderRef, R1);
  assert.equal((await convoy('unpin', 'web', '-n', ns)).code, 0);
  r = await getRelease(ns, 'web');
  assert.equal(r?.spec.pin, undefined);
  assert.ok(r?.spec.source.inline, 'the rest of the spec is untouched');

  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: T0 },
    currentRender: { renderRef: ref(3), revision: 'rev-3' },
  });
  const back = await convoy('rollback', 'web', '-n', ns);
  assert.equal(back.code, 0, back.stderr);
  assert.match(
    back.stdout,
    new RegExp(
      `^rolled back cli-pin/web: pinned to the last healthy render ${short1} \\(revision rev-1`,
      'm',
    ),
  );
  assert.match(back.stdout, /^Undo: convoy unpin web -n cli-pin$/m);
  assert.equal((await getRelease(ns, 'web'))?.spec.pin?.renderRef, R1);

  // spec.pin also set by someone else (kubectl patch): unpin still removes it
  await client.request({
    method: 'PATCH',
    path: await client.pathOf({ apiVersion: API_VERSION, kind: 'Release', namespace: ns, name: 'web' }),
    contentType: 'application/merge-patch+json',
    body: { spec: { pin: { renderRef: R1 } } },
    query: { fieldManager: 'kubectl-patch' },
  });
  const unpin2 = await convoy('unpin', 'web', '-n', ns);
  assert.equal(unpin2.code, 0, unpin2.stderr);
  assert.equal((await getRelease(ns, 'web'))?.spec.pin, undefined);
});

test('diff shows the dry-run change of each live object and what would be pruned', async () => {
  const ns = 'cli-diff';
  await namespace(ns);
  const render = cmRender(ns, 'new', { added: 'yes' });
  const R = renderRefOf(render);
  await store.put(ns, 'web', R, render, { revision: 'rev-new' });
  await createRelease(ns, 'web');
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R, revision: 'rev-new' },
  });
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: ns },
    data: { tag: 'old' },
  } as never);
  await writeInventory(ns, 'web', {
    entries: [
      { group: '', kind: 'ConfigMap', namespace: ns, name: 'cfg', version: 'v1', wave: 0, renderRef: R },
      {
        group: '',
        kind: 'ConfigMap',
        namespace: ns,
        name: 'gone',
        version: 'v1',
        wave: 0,
        renderRef: ref(1),
      },
    ],
  });

  const d = await convoy('diff', 'web', '-n', ns);
  assert.equal(d.code, 1, `differences exit 1 like kubectl diff: ${d.stderr}`);
  const out = d.stdout;
  assert.match(out, new RegExp(`^Render ${R.slice(0, 19)} from the render store: 1 objects, 0 hooks`, 'm'));
  assert.match(out, /^--- live ConfigMap cli-diff\/cfg$/m);
  assert.match(out, /^\+\+\+ render sha256:[0-9a-f]{12} ConfigMap cli-diff\/cfg$/m);
  assert.match(out, /^- {2}tag: old$/m);
  assert.match(out, /^\+ {2}tag: new$/m);
  assert.match(out, /^\+ {2}added: yes$/m);
  assert.match(out, /^\+ +convoy\.kumodo\.io\/release: cli-diff\.web$/m, 'the release label convoy adds');
  assert.match(out, /^prune {2}ConfigMap cli-diff\/gone \(left the render\)$/m);
  assert.match(out, /^1 changed, 0 unchanged, 1 to prune$/m);
  const live = await client.get<{ data: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: ns,
    name: 'cfg',
  });
  assert.deepEqual(live?.data, { tag: 'old' }, 'a dry run changes nothing');

  const dir = join(cluster.work, 'diff-dir');
  await mkdir(dir);
  await writeFile(
    join(dir, 'cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ${ns}}\ndata: {tag: old}\n`,
  );
  const fromDir = await convoy('diff', 'web', '-n', ns, '--dir', dir);
  assert.match(fromDir.stdout, /^Render sha256:[0-9a-f]{12} from directory .*: 1 objects/m);
  assert.doesNotMatch(fromDir.stdout, /^[-+] +tag:/m, 'the data is equal; only the release label differs');
  assert.match(fromDir.stdout, /^\+ +convoy\.kumodo\.io\/release: cli-diff\.web$/m);

  // A render that creates its own namespace: the object in it is new, not a failed dry run, and the
  // new Namespace shows what convoy sends, not the server's finalizers and status.
  const created = join(cluster.work, 'diff-new-ns');
  await mkdir(created);
  await writeFile(
    join(created, 'all.yaml'),
    'apiVersion: v1\nkind: Namespace\nmetadata: {name: cli-diff-new}\n---\n' +
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh, namespace: cli-diff-new}\ndata: {k: v}\n',
  );
  const withNs = await convoy('diff', 'web', '-n', ns, '--dir', created);
  assert.equal(withNs.code, 1, withNs.stdout + withNs.stderr);
  assert.match(withNs.stdout, /^--- live Namespace cli-diff-new \(does not exist\)$/m);
  assert.match(withNs.stdout, /^--- live ConfigMap cli-diff-new\/fresh \(does not exist\)$/m);
  assert.match(withNs.stdout, /^\+ {2}k: v$/m);
  assert.doesNotMatch(withNs.stdout, /failed the dry run|not found|finalizers|status:|phase:/);
  assert.match(withNs.stdout, /^2 changed, 0 unchanged, /m);
  assert.equal(
    await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'cli-diff-new' }),
    undefined,
    'a diff creates nothing',
  );
});

test('approve shows the diff of the current render, refuses without a terminal, and with --yes approves it', async () => {
  const ns = 'cli-approve';
  await namespace(ns);
  const manifests = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ${ns}}\ndata: {tag: held}\n`;
  // A render held by the Manual gate is not stored yet: approve renders the source itself.
  const rendered = renderRelease(
    {},
    { revision: 'inline', files: [{ path: 'inline.yaml', data: new TextEncoder().encode(manifests) }] },
  );
  assert.ok(rendered.ok);
  const R = rendered.renderRef;
  await createRelease(ns, 'web', { source: { inline: { manifests } }, syncPolicy: { mode: 'Manual' } });
  await createRelease(ns, 'auto');
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R, revision: 'inline' },
  });

  const auto = await convoy('approve', 'auto', '-n', ns, '--yes');
  assert.equal(auto.code, 2);
  assert.match(auto.stderr, /is in Auto mode: approval applies only to syncPolicy.mode Manual/);

  const refused = await convoy('approve', 'web', '-n', ns);
  assert.equal(refused.code, 2);
  assert.match(refused.stdout, /from the source, rendered here: 1 objects/);
  assert.match(refused.stdout, /^\+ {2}tag: held$/m);
  assert.match(refused.stderr, new RegExp(`not approved: stdin is not a terminal.*--yes to approve ${R}`));
  assert.equal((await getRelease(ns, 'web'))?.metadata.annotations?.[ANNOTATION_APPROVED_RENDER], undefined);
  // `convoy sync --approve`, as docs/reference/release.md writes it, is the same command
  const viaSync = await convoy('sync', 'web', '-n', ns, '--approve');
  assert.equal(viaSync.code, 2, viaSync.stdout + viaSync.stderr);
  assert.match(viaSync.stderr, new RegExp(`not approved: stdin is not a terminal.*--yes to approve ${R}`));
  assert.equal((await getRelease(ns, 'web'))?.metadata.annotations?.[ANNOTATION_APPROVED_RENDER], undefined);

  const ok = await convoy('approve', 'web', '-n', ns, '--yes');
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^\+ {2}tag: held$/m);
  assert.match(ok.stdout, new RegExp(`^approved render ${R} for cli-approve/web$`, 'm'));
  const r = await getRelease(ns, 'web');
  assert.equal(r?.metadata.annotations?.[ANNOTATION_APPROVED_RENDER], R);
  assert.ok(r?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT]);
});

test('diff, approve and render mask Secret values (changed: *** (before) / *** (after)); --show-secrets prints them', async () => {
  const ns = 'cli-secret';
  await namespace(ns);
  const OLD = 'aHVudGVyMg=='; // hunter2
  const NEW = 'bmV3cGFzcw=='; // newpass
  const USER = 'YWRtaW4=';
  const secretOf = (password: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: ns },
    type: 'Opaque',
    data: { password, user: USER },
  });
  const render: Render = { hooks: [], objects: [secretOf(NEW)] };
  const R = renderRefOf(render);
  await store.put(ns, 'web', R, render, { revision: 'rev-new' });
  await createRelease(ns, 'web', { syncPolicy: { mode: 'Manual' } });
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R, revision: 'rev-new' },
  });
  await client.create(secretOf(OLD) as never);

  const values = [OLD, NEW, USER, 'hunter2', 'newpass'];
  const masked = (out: string, what: string) => {
    for (const v of values) assert.ok(!out.includes(v), `${what}: ${v} printed`);
    assert.match(out, /^- {2}password: "\*\*\* \(before\)"$/m, what);
    assert.match(out, /^\+ {2}password: "\*\*\* \(after\)"$/m, what);
    assert.match(out, /^ {3}user: "\*\*\*"$/m, `${what}: an unchanged value is masked alike on both sides`);
  };
  const d = await convoy('diff', 'web', '-n', ns);
  assert.equal(d.code, 1, d.stderr);
  masked(d.stdout, 'diff');
  const shown = await convoy('diff', 'web', '-n', ns, '--show-secrets');
  assert.match(shown.stdout, new RegExp(`^- {2}password: ${OLD}$`, 'm'));
  assert.match(shown.stdout, new RegExp(`^\\+ {2}password: ${NEW}$`, 'm'));

  const refused = await convoy('approve', 'web', '-n', ns);
  assert.equal(refused.code, 2, 'no terminal: not approved, after the diff');
  masked(refused.stdout, 'approve');
  const refusedShown = await convoy('approve', 'web', '-n', ns, '--show-secrets');
  assert.match(refusedShown.stdout, new RegExp(`^\\+ {2}password: ${NEW}$`, 'm'));
  assert.equal((await getRelease(ns, 'web'))?.metadata.annotations?.[ANNOTATION_APPROVED_RENDER], undefined);

  const dir = join(cluster.work, 'render-secret');
  await mkdir(dir);
  await writeFile(
    join(dir, 's.yaml'),
    `apiVersion: v1\nkind: Secret\nmetadata: {name: db}\ndata: {password: ${OLD}}\nstringData: {token: hunter2}\n`,
  );
  const yaml = await runConvoy(['render', dir]);
  assert.equal(yaml.code, 0, yaml.stderr);
  for (const v of [OLD, 'hunter2']) assert.ok(!yaml.stdout.includes(v), `render printed ${v}`);
  assert.match(yaml.stdout, /^# Secret values are masked \(\*\*\*\); --show-secrets prints them$/m);
  assert.match(yaml.stdout, /^ {2}password: "\*\*\*"$/m);
  assert.match(yaml.stdout, /^ {2}token: "\*\*\*"$/m);
  const json = await runConvoy(['render', dir, '-o', 'json']);
  assert.ok(!json.stdout.includes(OLD), 'render -o json printed the value');
  const plain = await runConvoy(['render', dir, '--show-secrets']);
  assert.match(plain.stdout, new RegExp(`^ {2}password: ${OLD}$`, 'm'));
  assert.doesNotMatch(plain.stdout, /masked/);
  const refOnly = await runConvoy(['render', dir, '--ref-only']);
  const refShown = await runConvoy(['render', dir, '--ref-only', '--show-secrets']);
  assert.equal(refOnly.stdout, refShown.stdout, 'the renderRef is of the real values either way');
});

test('watch follows a rollout and exits 0 on Succeeded, 1 on RolledBack', async () => {
  const ns = 'cli-watch';
  await namespace(ns);
  const R1 = ref(1);
  const R2 = ref(2);
  const spec = { healthAssessment: {}, failurePolicy: { deadline: '5m' } };
  for (const name of ['ok', 'bad']) {
    await createRelease(ns, name, spec);
    await writeStatus(ns, name, {
      observedGeneration: 1,
      currentRender: { renderRef: R2, revision: 'rev-2' },
      lastHealthy: { renderRef: R1, revision: 'rev-1', time: T0 },
      rollout: { state: 'Progressing', renderRef: R2, startedAt: T0 },
      waves: [{ renderRef: R2, wave: 0, startedAt: T0 }],
    });
    await writeInventory(ns, name, {
      entries: [cfgEntry(ns, R2, 'Progressing')],
    });
  }
  const args = (name: string) => [
    'watch',
    name,
    '-n',
    ns,
    '--timeout',
    '2m',
    '--kubeconfig',
    cp.kubeconfigPath,
  ];

  const ok = startConvoy(args('ok'));
  await waitFor('the first progress line', async () => /objects 0\/1 Healthy/.test(ok.stdout()), {
    timeoutMs: 30_000,
  });
  await writeInventory(ns, 'ok', {
    entries: [cfgEntry(ns, R2, 'Healthy')],
  });
  await waitFor('the inventory change to show', async () => /objects 1\/1 Healthy/.test(ok.stdout()), {
    timeoutMs: 30_000,
  });
  await writeStatus(ns, 'ok', {
    observedGeneration: 1,
    currentRender: { renderRef: R2, revision: 'rev-2' },
    lastHealthy: { renderRef: R2, revision: 'rev-2', time: T0 },
    rollout: { state: 'Succeeded', renderRef: R2, startedAt: T0, finishedAt: T0 },
    waves: [{ renderRef: R2, wave: 0, startedAt: T0, completedAt: T0 }],
  });
  const okRes = await ok.done;
  assert.equal(okRes.code, 0, okRes.stderr + okRes.stdout);
  const lines = okRes.stdout.trimEnd().split('\n');
  assert.match(
    lines[0] ?? '',
    /^\d\d:\d\d:\d\d Progressing sha256:222222222222 · waves 0\/1 done \(at wave 0\) · objects 0\/1 Healthy$/,
  );
  assert.match(
    okRes.stdout,
    /^\d\d:\d\d:\d\d Succeeded sha256:222222222222 · waves 1\/1 done · objects 1\/1 Healthy$/m,
  );
  assert.match(lines[lines.length - 1] ?? '', new RegExp(`^rollout of ${R2} Succeeded$`));
  assert.ok(!okRes.stdout.includes('\u001b['), 'no colour when stdout is not a terminal');

  const bad = startConvoy(args('bad'));
  await waitFor('the first progress line', async () => /Progressing/.test(bad.stdout()), {
    timeoutMs: 30_000,
  });
  await writeStatus(ns, 'bad', {
    observedGeneration: 1,
    currentRender: { renderRef: R2, revision: 'rev-2' },
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: T0 },
    rollout: {
      state: 'RolledBack',
      renderRef: R2,
      startedAt: T0,
      finishedAt: T0,
      reason: 'DeadlineExceeded',
      message: 'cfg Progressing',
    },
  });
  const badRes = await bad.done;
  assert.equal(badRes.code, 1, badRes.stderr + badRes.stdout);
  assert.match(
    badRes.stdout,
    new RegExp(`^rollout of ${R2} RolledBack to ${R1}: DeadlineExceeded: cfg Progressing$`, 'm'),
  );

  const gone = await convoy('watch', 'nope', '-n', ns);
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /release "nope" not found/);

  const slow = await convoy('watch', 'bad', '-n', ns, '--render', R1, '--timeout', '1s');
  assert.equal(slow.code, 2);
  assert.match(slow.stderr, /timed out after 1s waiting for the rollout of sha256:111111111111 to start/);
});

test('render DIR prints the YAML and the same renderRef the controller code computes', async () => {
  const dir = join(cluster.work, 'render-src');
  await mkdir(join(dir, 'sub'), { recursive: true });
  const files: Record<string, string> = {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder --substitute fills
    'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: "${VERSION}"}\n',
    'sub/b.yml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\nspec: {replicas: 1}\n',
    'README.md': 'not a manifest',
  };
  for (const [p, text] of Object.entries(files)) await writeFile(join(dir, p), text);
  const res = await runConvoy(['render', dir, '--target-namespace', 'shop', '--substitute', 'VERSION=1.2']);
  assert.equal(res.code, 0, res.stderr);
  const want = renderRelease(
    { render: { targetNamespace: 'shop', substitute: { VERSION: '1.2' } } },
    {
      revision: 'x',
      files: Object.entries(files).map(([path, text]) => ({ path, data: new TextEncoder().encode(text) })),
    },
  );
  assert.ok(want.ok);
  assert.match(res.stdout, new RegExp(`^# renderRef: ${want.renderRef}$`, 'm'));
  assert.match(res.stdout, /^# 2 objects, 0 hooks$/m);
  assert.match(res.stdout, /^ {2}namespace: shop$/m);
  assert.match(res.stdout, /^ {2}v: "1.2"$/m);
  const only = await runConvoy([
    'render',
    dir,
    '--ref-only',
    '--target-namespace',
    'shop',
    '--substitute',
    'VERSION=1.2',
  ]);
  assert.equal(only.stdout, `${want.renderRef}\n`);
  const broken = join(cluster.work, 'render-broken');
  await mkdir(broken);
  await writeFile(join(broken, 'x.yaml'), 'kind: ConfigMap\n');
  const bad = await runConvoy(['render', broken]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /x\.yaml/);
});

test('rules eval judges local objects offline', async () => {
  const file = join(cluster.work, 'deploy.yaml');
  await writeFile(
    file,
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns, generation: 1}\nspec: {replicas: 3}\nstatus: {observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 1, readyReplicas: 1}\n',
  );
  const res = await runConvoy(['rules', 'eval', '--rules', 'default', file]);
  assert.equal(res.code, 1, res.stderr);
  assert.match(res.stdout, /^OBJECT +RESULT +RULE +MESSAGE$/m);
  assert.match(res.stdout, /^Deployment\/ns\/web +fail /m);
  // Bad input: a CEL type error is found when the rule is compiled, naming the rule (exit 2).
  const rules = join(cluster.work, 'typo-rules.yaml');
  await writeFile(
    rules,
    "apiVersion: convoy.kumodo.io/v1alpha1\nkind: HealthRuleSet\nmetadata: {name: team, namespace: ns}\nspec:\n  rules:\n  - name: times\n    match: {group: apps, kinds: [Deployment]}\n    healthy: \"'a' * 1 == 'aa'\"\n",
  );
  const typed = await runConvoy(['rules', 'eval', '--rules', rules, file]);
  assert.equal(typed.code, 2, typed.stdout + typed.stderr);
  assert.match(
    typed.stderr,
    /rule set ns\/team, rule times, healthy, line 1, column \d+: found no matching overload for '_\*_' applied to '\(string, int\)'/,
  );
});

test('kubectl convoy: the launcher works as a kubectl plugin', async () => {
  const ns = 'cli-plugin';
  await namespace(ns);
  await createRelease(ns, 'web');
  const pluginDir = join(cluster.work, 'plugins');
  await mkdir(pluginDir);
  await symlink(CONVOY_LAUNCHER, join(pluginDir, 'kubectl-convoy'));
  const kubectl = join(await ensureBinaries(), 'kubectl');
  const res = await runConvoy(['convoy', 'get', '-n', ns], {
    command: [kubectl],
    env: { PATH: `${pluginDir}:${process.env.PATH ?? ''}`, KUBECONFIG: cp.kubeconfigPath },
  });
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /^NAME +STATE +HEALTH +REVISION +AGE +MESSAGE\nweb +Pending +- +- +\d+s\n$/);
});

test('first contact: help per command, one-line errors, watch ends on what needs a person, short ids, suspend, events', async () => {
  const ns = 'cli-first';
  await namespace(ns);

  // Per-command help with examples, and `convoy help CMD`.
  for (const argv of [
    ['dev', '--help'],
    ['rules', 'eval', '--help'],
    ['help', 'watch'],
  ]) {
    const h = await runConvoy(argv);
    assert.equal(h.code, 0, `${argv.join(' ')}: ${h.stderr}`);
    assert.match(h.stdout, /^usage: convoy (dev|rules eval|watch)/, argv.join(' '));
    assert.match(h.stdout, /\nexamples:\n {2}# /, argv.join(' '));
  }
  // Errors are one line of ours: no parseArgs text, no ENOENT/EISDIR, no stack.
  const errors: [string[], RegExp][] = [
    [
      ['rules', 'eval', '--bogus'],
      /^convoy: rules eval: unknown flag --bogus\nrun "convoy rules eval --help" for the arguments and flags\n$/,
    ],
    [
      ['rules', 'eval', '--rules', join(cluster.work, 'missing.yaml'), '-'],
      /^convoy: \/.*missing\.yaml: no such file or directory\n$/,
    ],
    [['rules', 'eval', '--rules', cluster.work, '-'], /^convoy: \/.*: is a directory, not a file\n$/],
    [['get', '--kubeconfig', cluster.work], /^convoy: kubeconfig \/.*: is a directory, not a file\n$/],
  ];
  for (const [argv, want] of errors) {
    const r = await runConvoy(argv, { stdin: '' });
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, want, argv.join(' '));
  }

  // A Release that failed in a way a retry does not fix by itself (DryRunFailed, not Stalled): watch
  // without --timeout ends with exit 1 and says why.
  const R = renderRefOf(cmRender(ns, 'one'));
  await store.put(ns, 'web', R, cmRender(ns, 'one'), { revision: 'rev-1' });
  await createRelease(ns, 'web', { healthAssessment: {}, failurePolicy: { deadline: '5m' } });
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R, revision: 'rev-1' },
    lastAttempted: { renderRef: R, revision: 'rev-1', time: T0, applied: false },
    conditions: [cond('Ready', 'False', 'DryRunFailed', 'ConfigMap hello: a namespace is required')],
  });
  const failed = await convoy('watch', 'web', '-n', ns);
  assert.equal(failed.code, 1, failed.stdout + failed.stderr);
  assert.match(
    failed.stdout,
    /^needs attention: Ready is False \(DryRunFailed\): ConfigMap hello: a namespace is required$/m,
  );
  // An unknown short id is refused; a full ref the controller has not rendered is waited for, never "Synced".
  const short = await convoy('watch', 'web', '-n', ns, '--render', 'abcdef012345');
  assert.equal(short.code, 2);
  assert.match(short.stderr, /^convoy: no render of cli-first\/web starts with abcdef012345/m);
  await writeStatus(ns, 'web', {
    observedGeneration: 1,
    currentRender: { renderRef: R, revision: 'rev-1' },
    lastAttempted: { renderRef: R, revision: 'rev-1', time: T0, applied: true },
    lastSuccessful: { renderRef: R, revision: 'rev-1', time: T0 },
    lastHealthy: { renderRef: R, revision: 'rev-1', time: T0 },
    conditions: [cond('Ready', 'True', 'Synced', 'applied')],
  });
  const later = await convoy('watch', 'web', '-n', ns, '--render', ref(9), '--timeout', '2s');
  assert.equal(later.code, 2);
  assert.match(later.stderr, /render sha256:9{12} is not known to cli-first\/web yet; waiting/);
  assert.doesNotMatch(later.stdout, /Synced/);
  assert.match(later.stdout, /Pending sha256:999999999999/);

  // Short render ids are accepted where a render is named.
  const pinned = await convoy('pin', 'web', R.slice('sha256:'.length, 'sha256:'.length + 12), '-n', ns);
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.equal((await getRelease(ns, 'web'))?.spec.pin?.renderRef, R);
  assert.equal((await convoy('unpin', 'web', '-n', ns)).code, 0);

  // rollback when already on the last healthy render: says so and pins nothing.
  const noop = await convoy('rollback', 'web', '-n', ns);
  assert.equal(noop.code, 0, noop.stderr);
  assert.match(
    noop.stdout,
    /already runs its last healthy render sha256:[0-9a-f]{12} \(revision rev-1\); nothing to roll back, nothing pinned/,
  );
  assert.equal((await getRelease(ns, 'web'))?.spec.pin, undefined);

  // suspend / resume write spec.suspend as convoy-cli; get filters on it.
  const sus = await convoy('suspend', 'web', '-n', ns);
  assert.equal(sus.code, 0, sus.stderr);
  assert.match(sus.stdout, /^suspended cli-first\/web: convoy neither syncs nor rolls it back/m);
  const r = await getRelease(ns, 'web');
  assert.equal(r?.spec.suspend, true);
  assert.ok(
    r?.metadata.managedFields?.some(
      (m) => m.manager === 'convoy-cli' && JSON.stringify(m.fieldsV1).includes('f:suspend'),
    ),
  );
  const listed = await convoy('get', '-n', ns, '--status-selector', 'suspended=true');
  assert.match(listed.stdout, /^web /m);
  const watchSuspended = await convoy('watch', 'web', '-n', ns);
  assert.equal(watchSuspended.code, 1);
  assert.match(watchSuspended.stdout, /suspended \(spec.suspend\).*convoy resume web/);
  const res = await convoy('resume', 'web', '-n', ns);
  assert.equal(res.code, 0, res.stderr);
  assert.equal((await getRelease(ns, 'web'))?.spec.suspend, false);

  // events: the Release's own Events and those of its objects, not others.
  await writeInventory(ns, 'web', { entries: [cfgEntry(ns, R, 'Healthy')] });
  const event = (name: string, kind: string, objName: string, reason: string) =>
    client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: {
        kind,
        name: objName,
        namespace: ns,
        ...(kind === 'Release' ? { apiVersion: API_VERSION } : { apiVersion: 'v1' }),
      },
      reason,
      message: `${reason} happened`,
      type: 'Normal',
      firstTimestamp: T0,
      lastTimestamp: T0,
      source: { component: 'test' },
    } as Parameters<KubeClient['create']>[0]);
  await event('e1', 'Release', 'web', 'Synced');
  await event('e2', 'ConfigMap', 'cfg', 'Touched');
  await event('e3', 'ConfigMap', 'unrelated', 'Elsewhere');
  const ev = await convoy('events', 'web', '-n', ns);
  assert.equal(ev.code, 0, ev.stderr);
  assert.match(ev.stdout, /^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/m);
  assert.match(ev.stdout, /Normal +Synced +Release\/web +Synced happened/);
  assert.match(ev.stdout, /Normal +Touched +ConfigMap\/cfg +Touched happened/);
  assert.doesNotMatch(ev.stdout, /Elsewhere/);
  // logs of a hook that does not exist: one line naming the hooks there are.
  const logs = await convoy('logs', 'web', 'migrate', '-n', ns);
  assert.equal(logs.code, 2);
  assert.match(logs.stderr, /^convoy: release cli-first\/web has no hook "migrate" \(no hooks recorded\)$/m);
});
