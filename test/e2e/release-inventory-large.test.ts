// A Release of 10,000 objects and ~20 MiB of manifests (one inventory object used to be refused with
// "etcdserver: request is too large"), end to end on the real control plane with
// convoy-controller-manager and convoy-observer as processes and a git source: R1 applies all 10,000
// ConfigMaps and records them in the inventory's parts (docs/design.md#inventory-parts), Succeeded; R2
// drops 2,000 and changes the rest, the 2,000 are pruned and leave the inventory; R3 changes the 8,000
// again and adds ConfigMaps and a Deployment that never becomes Ready, and is rolled back to R2 at its
// deadline: the live ConfigMaps are R2's exactly (data too), R3's extras are gone, the inventory names
// exactly R2. Every check reads the live cluster (LIST, paged) and every inventory part. The phases'
// times are printed as diagnostics (figures come from `npm run bench:inventory`; nothing here asserts
// on time).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { readInventoryParts } from '../../src/kube/inventory-read.ts';
import { canonicalJson } from '../../src/render/canonical.ts';
import { mergePatch, releaseRef } from '../support/release.ts';
import { deployment, gitRelease, inRolloutScenario, reached } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

// 60 s Leases, not the tests' 5 s: parsing ~20 MiB of YAML (and hashing and storing the render) keeps
// the controller's event loop busy for longer than 5 s on a loaded machine, so a renewal comes late, the
// shard lapses and every verdict reads Pending while the observer's is lapsed — waits without an end.
const env = convoySystemPerFile({
  identity: 'inventory-large',
  nodes: 1,
  observerLeaseDuration: '60s',
  managerArgs: ['--lease-duration', '60s'],
});
/** Each step's bound: generous, for a shared machine. */
const STEP_MS = 480_000;

const OBJECTS = 10_000;
const DROPPED = 2_000;
const EXTRAS = 500;
/** Characters of random padding per ConfigMap: 10,000 of them make ~20 MiB of manifests. */
const PAD = 2_000;
/** ConfigMaps per file of the repository. */
const PER_FILE = 1_000;
const D = '8s';
/** The namespace's own ConfigMap, made by kube-controller-manager: no render's. */
const ROOT_CA = 'kube-root-ca.crt';

type Data = Record<string, string>;
type LiveConfigMap = { metadata: { name?: string }; data?: Data };

const pad = () =>
  randomBytes(Math.ceil((PAD * 3) / 4))
    .toString('base64')
    .slice(0, PAD);
const cmName = (i: number) => `cm-${String(i).padStart(5, '0')}`;

function cmDoc(name: string, data: Data): string {
  const lines = Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${lines.join('')}`;
}

/** The repository files of ConfigMaps `names` (PER_FILE a file), and the manifest bytes. */
function files(
  prefix: string,
  cms: ReadonlyMap<string, Data>,
): { files: Record<string, string>; bytes: number } {
  const out: Record<string, string> = {};
  const names = [...cms.keys()];
  let bytes = 0;
  for (let f = 0; f * PER_FILE < names.length; f++) {
    const text = names
      .slice(f * PER_FILE, (f + 1) * PER_FILE)
      .map((n) => cmDoc(n, cms.get(n) ?? {}))
      .join('---\n');
    out[`app/${prefix}-${String(f).padStart(2, '0')}.yaml`] = text;
    bytes += Buffer.byteLength(text);
  }
  return { files: out, bytes };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// The file runs alone for ~6.5 min on an idle 2-core machine: longer than the suite's default test timeout.
const TEST_MS = 1_800_000;

test(
  '10,000 ConfigMaps (~20 MiB): applied and recorded, 2,000 pruned, an unhealthy render rolled back to exactly the last healthy one',
  { timeout: TEST_MS },
  (t) =>
    inRolloutScenario(env, 'inv-large', 'large', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const requestSync = () =>
        mergePatch(client, releaseRef(ns, 'app'), {
          metadata: { annotations: { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() } },
        });
      const phase = (what: string, since: number) => t.diagnostic(`${what}: ${secs(Date.now() - since)}`);

      /** Every ConfigMap of the namespace but its own, by a paged LIST. */
      const liveConfigMaps = async (): Promise<Map<string, Data>> => {
        const items = await client.listAll<LiveConfigMap>(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
          { limit: 500 },
        );
        return new Map(
          items.filter((c) => c.metadata.name !== ROOT_CA).map((c) => [c.metadata.name ?? '', c.data ?? {}]),
        );
      };
      /** What differs between the live ConfigMaps and `want` (the first few of each kind of difference). */
      const diff = (live: ReadonlyMap<string, Data>, want: ReadonlyMap<string, Data>) => {
        const missing = [...want.keys()].filter((n) => !live.has(n));
        const extra = [...live.keys()].filter((n) => !want.has(n));
        const changed = [...want.entries()].filter(
          // canonicalJson: the API server answers a ConfigMap's data with its keys sorted.
          ([n, d]) => live.has(n) && canonicalJson(live.get(n)) !== canonicalJson(d),
        );
        return {
          live: live.size,
          want: want.size,
          missing: missing.length,
          extra: extra.length,
          changed: changed.length,
          sample: {
            missing: missing.slice(0, 3),
            extra: extra.slice(0, 3),
            changed: changed.slice(0, 3).map(([n]) => n),
          },
        };
      };
      const same = (d: ReturnType<typeof diff>) => d.missing === 0 && d.extra === 0 && d.changed === 0;
      /** Polls until the live ConfigMaps are exactly `want` (a prune or a rollback still under way). */
      const waitForLive = async (what: string, want: ReadonlyMap<string, Data>) => {
        let last: ReturnType<typeof diff> | undefined;
        await waitFor(
          what,
          async () => {
            last = diff(await liveConfigMaps(), want);
            return same(last);
          },
          { timeoutMs: STEP_MS, intervalMs: 2_000 },
        ).catch((err: Error) => {
          throw new Error(`${err.message}\nlast difference: ${JSON.stringify(last)}\n${env.logs()}`);
        });
      };
      /** The whole inventory (every part) names exactly `names` (and the Deployment when `web`), all of render `ref`. */
      const assertInventory = async (names: Iterable<string>, ref: string, web = false) => {
        const merged = await readInventoryParts(client, { namespace: ns, name: 'app' });
        assert.ok(merged !== undefined, 'the inventory exists');
        const entries = merged.inventory.entries ?? [];
        const want = [...names].map((n) => `ConfigMap/${n}`);
        if (web) want.push('Deployment/web');
        assert.deepEqual(
          entries.map((e) => `${e.kind}/${e.name}`).sort(),
          want.sort(),
          'the inventory names exactly the render',
        );
        const other = entries.filter((e) => e.renderRef !== ref || e.namespace !== ns);
        assert.deepEqual(other.slice(0, 3), [], `${other.length} entries of another render or namespace`);
        assert.deepEqual(merged.inventory.pending ?? [], [], 'nothing left pending');
        return merged.objects.size;
      };

      // R1: 10,000 ConfigMaps, ~20 MiB of manifests
      const r1 = new Map<string, Data>();
      for (let i = 0; i < OBJECTS; i++) r1.set(cmName(i), { render: '1', index: String(i), pad: pad() });
      const f1 = files('cms', r1);
      let since = Date.now();
      const sha1 = await repo.commit(f1.files);
      phase(`R1 committed (${OBJECTS} ConfigMaps, ${mib(f1.bytes)} of manifests)`, since);
      assert.ok(f1.bytes > 19 * 1024 * 1024, `manifests of ${mib(f1.bytes)}`);
      since = Date.now();
      // A long interval and a sync request after each commit (as a push Receiver or `convoy sync` makes):
      // every reconcile renders the ~20 MiB again, so a 1 s interval would keep one core rendering.
      await client.create(
        gitRelease(ns, 'app', repo, {
          failurePolicy: { deadline: D, rollback: 'OnFailure' },
          syncPolicy: { interval: '10m' },
        }),
      );
      const s1 = await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1), STEP_MS);
      phase('R1 created → Succeeded', since);
      const R1 = s1.status?.rollout?.renderRef ?? '';
      assert.equal(s1.status?.lastHealthy?.renderRef, R1);
      assert.equal(s1.status?.lastSuccessful?.renderRef, R1);
      const d1 = diff(await liveConfigMaps(), r1);
      assert.ok(same(d1), `live ConfigMaps are R1's: ${JSON.stringify(d1)}`);
      const parts1 = await assertInventory(r1.keys(), R1);
      t.diagnostic(`R1 inventory: ${OBJECTS} entries in ${parts1} parts`);
      assert.ok(parts1 >= 10, `${parts1} parts`);

      // R2: the last 2,000 dropped, the other 8,000 changed
      const r2 = new Map<string, Data>();
      for (let i = 0; i < OBJECTS - DROPPED; i++)
        r2.set(cmName(i), { render: '2', index: String(i), pad: pad() });
      const f2 = files('cms', r2);
      const gone = Object.fromEntries(
        Object.keys(f1.files)
          .filter((p) => !(p in f2.files))
          .map((p) => [p, null]),
      );
      since = Date.now();
      const sha2 = await repo.commit({ ...f2.files, ...gone });
      await requestSync();
      const s2 = await waitForRollout('Succeeded(R2)', reached('Succeeded', sha2), STEP_MS);
      phase(`R2 committed → Succeeded (${DROPPED} dropped, ${r2.size} changed)`, since);
      const R2 = s2.status?.rollout?.renderRef ?? '';
      assert.notEqual(R2, R1);
      assert.equal(s2.status?.lastHealthy?.renderRef, R2);
      since = Date.now();
      await waitForLive(`the ${DROPPED} ConfigMaps R2 dropped pruned, the rest R2's`, r2);
      phase('R2 Succeeded → live = R2', since);
      const parts2 = await assertInventory(r2.keys(), R2);
      t.diagnostic(`R2 inventory: ${r2.size} entries in ${parts2} parts`);

      // R3: the 8,000 changed again, 500 ConfigMaps more and a Deployment that never becomes Ready
      const r3 = new Map<string, Data>();
      for (const [n, d] of r2) r3.set(n, { ...d, render: '3' });
      const extras = new Map<string, Data>();
      for (let i = 0; i < EXTRAS; i++)
        extras.set(`extra-${String(i).padStart(3, '0')}`, { render: '3', pad: pad() });
      since = Date.now();
      const sha3 = await repo.commit({
        ...files('cms', r3).files,
        ...files('extra', extras).files,
        'app/web.yaml': deployment('web', 'v3', 'never-ready'),
      });
      await requestSync();
      const p3 = await waitForRollout(
        'Progressing(R3) with a clock',
        (r) => r.state === 'Progressing' && r.revision === sha3 && r.startedAt !== undefined,
        STEP_MS,
      );
      phase('R3 committed → Progressing', since);
      const R3 = p3.status?.rollout?.renderRef ?? '';
      const rb = await waitForRollout(
        'RolledBack(R3)',
        (r, rel: Release) =>
          r.state === 'RolledBack' && r.renderRef === R3 && rel.status?.lastAttempted?.renderRef === R2,
        STEP_MS,
      );
      phase(`R3 committed → RolledBack (deadline ${D})`, since);
      assert.equal(rb.status?.rollout?.reason, 'DeadlineExceeded', JSON.stringify(rb.status?.rollout));
      assert.equal(rb.status?.lastHealthy?.renderRef, R2);
      assert.equal(rb.status?.lastSuccessful?.renderRef, R2);
      since = Date.now();
      await waitForLive('the live ConfigMaps R2’s exactly, R3’s extras gone', r2);
      phase('RolledBack → live = R2', since);
      const live = await liveConfigMaps();
      assert.equal(live.size, OBJECTS - DROPPED);
      for (const n of [cmName(0), cmName(4_321), cmName(OBJECTS - DROPPED - 1)])
        assert.deepEqual(live.get(n), r2.get(n), `${n} has R2's data`);
      assert.equal(
        await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' }),
        undefined,
        "R3's Deployment is removed",
      );
      await assertInventory(r2.keys(), R2);
    }),
);
