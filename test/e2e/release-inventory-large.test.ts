// A Release far above what one ReleaseInventory object holds (issue 20, finding 3: 5,000 objects were
// applied, then the inventory write was refused, `etcdserver: request is too large`), end to end with
// convoy-controller-manager and convoy-observer on the real control plane and a git source: every
// ConfigMap is applied, recorded across inventory parts (docs/design.md#inventory-parts) and assessed
// Healthy by the observer part by part; a bad render with a third of them prunes the rest (and the parts
// they filled go), then rolls back, and every object of the first render is live and recorded again.
// 3,000 objects by default, above the old limit of about 2,000, to keep the file's time reasonable on a
// shared machine; CONVOY_E2E_INVENTORY_OBJECTS=10000 runs the full size (npm run bench:inventory
// measures 10,000 against the apiserver's limits).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Release, ReleaseInventory } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { readInventoryParts } from '../../src/kube/inventory-read.ts';
import { releaseSelector } from '../../src/store/layout.ts';
import { deployment, gitRelease, inRolloutScenario, reached } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const OBJECTS = Number(process.env.CONVOY_E2E_INVENTORY_OBJECTS ?? 3_000);
const PER_PART = 1_000;
// Longer Leases than the tests' 5 s: on a loaded machine a renewal that comes late drops the shard, which
// stops the controller's reconcile of thousands of objects half-way (retried from the start) and makes
// every verdict Pending while the observer's is lapsed — waits, not failures, but without an end.
const env = convoySystemPerFile({
  identity: 'inventory-large',
  nodes: 1,
  observerLeaseDuration: '60s',
  managerArgs: ['--lease-duration', '60s'],
});
/** Each step's bound: generous, for a shared machine (about 30 s each on an idle one). */
const STEP_MS = 900_000;

/** `n` ConfigMaps in one multi-document file. */
function configMaps(n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${String(i).padStart(5, '0')}\ndata:\n  i: "${i}"\n`,
  ).join('---\n');
}

async function liveConfigMaps(client: KubeClient, ns: string): Promise<number> {
  const items = await client.listAll<{ metadata: { name: string } }>(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
    { labelSelector: releaseSelector(ns, 'app'), limit: 1000, metadataOnly: true },
  );
  return items.length;
}

const inventoryOf = (client: KubeClient, ns: string) =>
  readInventoryParts(client, { namespace: ns, name: 'app' });

const sizeOf = (o: ReleaseInventory) => Buffer.byteLength(JSON.stringify(o));

describe(`a Release of ${OBJECTS} objects`, () => {
  test('applied, recorded across parts, Healthy; a bad render prunes to a third, rolls back, and all are back', () =>
    inRolloutScenario(env, 'inv-large', 'large', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const t0 = Date.now();
      const sha1 = await repo.commit({ 'app/cms.yaml': configMaps(OBJECTS) });
      await client.create(
        gitRelease(ns, 'app', repo, {
          // ConfigMaps are never unhealthy, so a short deadline cannot fail the big render while it is
          // being applied (Pending waits); the bad render's Deployment is Degraded after 10 s
          healthAssessment: {
            deadline: '10s',
            globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
          },
          failurePolicy: { deadline: '20s', rollback: 'OnFailure' },
        } satisfies Partial<Release['spec']>),
      );

      // 1. every object applied, recorded in ⌈N/1000⌉ parts, assessed Healthy
      const r1 = await waitForRollout('Succeeded(commit 1)', reached('Succeeded', sha1), STEP_MS);
      const R1 = r1.status?.rollout?.renderRef ?? '';
      assert.equal(r1.status?.lastHealthy?.renderRef, R1);
      const applied = Date.now();
      const inv1 = await inventoryOf(client, ns);
      const entries1 = inv1?.inventory.entries ?? [];
      assert.equal(entries1.length, OBJECTS);
      assert.equal(inv1?.objects.size, Math.ceil(OBJECTS / PER_PART));
      assert.equal((inv1?.inventory.pending ?? []).length, 0, 'nothing left pending');
      assert.ok(
        entries1.every((e) => e.renderRef === R1 && e.state === 'Healthy' && e.assessedRenderRef === R1),
        'every entry recorded with R1 and assessed Healthy',
      );
      assert.equal(await liveConfigMaps(client, ns), OBJECTS);
      const biggest = Math.max(...[...(inv1?.objects.values() ?? [])].map(sizeOf));
      process.stdout.write(
        `# ${OBJECTS} objects: Succeeded in ${((applied - t0) / 1000).toFixed(0)} s; ` +
          `${inv1?.objects.size} parts, biggest ${(biggest / 1024 / 1024).toFixed(2)} MiB stored\n`,
      );
      const healthy = r1.status?.conditions?.find((c) => c.type === 'Healthy');
      assert.equal(healthy?.status, 'True', JSON.stringify(healthy));

      // 2. a bad render with a third of the objects: the rest pruned, the parts they filled deleted …
      const kept = Math.ceil(OBJECTS / 3);
      const sha2 = await repo.commit({
        'app/cms.yaml': configMaps(kept),
        'app/web.yaml': deployment('web', 'v2', 'never-ready'),
      });
      const pruned = await waitFor(
        'the render of commit 2 recorded and the rest pruned from the inventory',
        async () => {
          const inv = await inventoryOf(client, ns);
          const entries = inv?.inventory.entries ?? [];
          const r2 = entries.find((e) => e.kind === 'Deployment')?.renderRef;
          return r2 !== undefined && entries.length === kept + 1 && entries.every((e) => e.renderRef === r2)
            ? inv
            : false;
        },
        { timeoutMs: STEP_MS, intervalMs: 2_000 },
      );
      assert.equal(pruned.objects.size, Math.ceil((kept + 1) / PER_PART), 'the emptied parts are deleted');
      assert.equal(await liveConfigMaps(client, ns), kept);

      // 3. … then rolled back at the Deployment's health deadline: all of commit 1 live and recorded again
      const rb = await waitForRollout('RolledBack(commit 2)', reached('RolledBack', sha2), STEP_MS);
      assert.equal(rb.status?.lastHealthy?.renderRef, R1);
      const back = await waitFor(
        'every object of R1 recorded and Healthy again',
        async () => {
          const inv = await inventoryOf(client, ns);
          const entries = inv?.inventory.entries ?? [];
          return entries.length === OBJECTS &&
            (inv?.inventory.pending ?? []).length === 0 &&
            entries.every((e) => e.renderRef === R1 && e.kind === 'ConfigMap' && e.state === 'Healthy')
            ? inv
            : false;
        },
        { timeoutMs: STEP_MS, intervalMs: 2_000 },
      );
      assert.equal(back.objects.size, Math.ceil(OBJECTS / PER_PART));
      assert.equal(await liveConfigMaps(client, ns), OBJECTS);
      const web = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
      assert.equal(web, undefined, 'the bad render’s Deployment is pruned by the rollback');
      process.stdout.write(
        `# pruned to ${kept}, rolled back to ${OBJECTS}: ${((Date.now() - t0) / 1000).toFixed(0)} s in all\n`,
      );
    }));
});
