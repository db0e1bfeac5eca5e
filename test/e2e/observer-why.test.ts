// A workload that is not available says why, read from its Pods (docs/design.md#assessment), on the real
// control plane with its scheduler and kwok's nodes: the health loop with the observer's watches, the test
// playing the controller-manager (it applies the Release, its status.lastAttempted, its ReleaseInventory
// and the Deployment). A Deployment whose Pods no node fits gets the scheduler's reason in its entry's
// message and the Release's Healthy condition; the Pods are read from a watch of the namespace once it
// has synced, not by a LIST per pass, and the watch stops when the workload is available again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inventoryEntry } from '../../src/api/testsupport.ts';
import { RecordingClient } from '../../src/observer/client-testsupport.ts';
import { HealthController, installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { TargetWatches } from '../../src/observer/target-watches.ts';
import type { Harness } from '../../src/runtime/index.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { observerHarness } from '../support/observer-harness.ts';
import {
  applyAppliedRelease,
  applyControllerInventory,
  applyDeployedDeployment,
  condition,
  getInventory,
  getRelease,
} from '../support/release.ts';
import { DEFAULT_HEALTH, LEASE_NS } from '../support/system.ts';
import { waitFor, waitForMore } from '../support/wait.ts';

const NS = 'why';
const A = `sha256:${'a'.repeat(64)}`;
const RULE = 'default/deployment';
/** The entry's message: the rule's, then why, from the scheduler's PodScheduled=False of one of its Pods. */
const WHY =
  /^0 of 2 updated replicas available \(rule default\/deployment\); pod nofit-[a-z0-9]+-[a-z0-9]+: Unschedulable: 0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector\./;

describe('observer: why a workload is not available', () => {
  let harness: Harness;
  let hc: HealthController;
  let watches: TargetWatches;
  /** The health loop's client: the requests it sends, recorded. */
  let loopClient: RecordingClient;
  const { cp, client } = useCrdCluster(
    { namespaces: [NS, LEASE_NS], workloads: true, nodes: 2 },
    {
      setUp: async () => {
        await waitFor(
          'default service account',
          () => client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: NS, name: 'default' }),
          { timeoutMs: 60_000 },
        );
        await installDefaultRules(client);
        harness = observerHarness('observer-why-test', cp.kubeConfig);
        loopClient = new RecordingClient({ kubeConfig: cp.kubeConfig });
        watches = new TargetWatches({ registry: harness.metrics.registry, log: harness.log });
        harness.onStop(() => watches.stop());
        // Wake-ups go nowhere: no controller runs here (the annotation mode patches the Release).
        hc = new HealthController(harness, {
          client: loopClient,
          workers: 2,
          sync: { kind: 'annotation' },
          watches,
        });
        await harness.start();
      },
      tearDown: async () => harness?.stop(),
    },
  );

  const applyDeployment = (name: string, nodeSelector: Record<string, string> | undefined) =>
    applyDeployedDeployment(client, NS, name, { release: name, replicas: 2, nodeSelector });
  const entryOf = async (release: string) => (await getInventory(client, NS, release))?.entries?.[0];
  const podLists = () =>
    loopClient.requests.filter(
      (r) => r.method === 'GET' && r.path.split('?')[0] === `/api/v1/namespaces/${NS}/pods`,
    ).length;

  it('a Deployment whose Pods no node fits says the scheduler’s reason, read from a Pod watch', async () => {
    await applyDeployment('nofit', { 'convoy.test/no-such-node': 'true' });
    await applyAppliedRelease(client, NS, 'nofit', { healthAssessment: DEFAULT_HEALTH }, A);
    await applyControllerInventory(client, NS, 'nofit', [
      inventoryEntry({
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: NS,
        name: 'nofit',
        wave: 0,
        renderRef: A,
      }),
    ]);

    // Every Pod pending: the rule's message (once the Deployment's status counts both replicas), then
    // the scheduler's reason for one of its Pods.
    const e = await waitFor(
      'the entry says why',
      async () => {
        const x = await entryOf('nofit');
        return WHY.test(x?.message ?? '') && x;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    assert.equal(e.state, 'Progressing', 'the state is the rule’s');
    assert.equal(e.rule, RULE, 'the rule that decided is unchanged');
    assert.ok((e.message ?? '').length <= 400, `bounded: ${e.message?.length} characters`);

    // The Release's Healthy condition names the entry with its message.
    const healthy = await waitFor(
      'the Healthy condition says why',
      async () => {
        const c = condition(await getRelease(client, NS, 'nofit'), 'Healthy');
        return (
          c?.message?.startsWith(`1 object not healthy yet: Deployment ${NS}/nofit: `) === true &&
          WHY.test(c.message.slice(`1 object not healthy yet: Deployment ${NS}/nofit: `.length)) &&
          c
        );
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.equal(healthy.status, 'Unknown');
    assert.equal(healthy.reason, 'Progressing');

    // Once the namespace's Pod watch has synced, a pass reads the Pods from it: no LIST.
    await waitFor('the Pod watch synced', async () => watches.cachedPods(loopClient, NS) === 2, {
      timeoutMs: 30_000,
    });
    const lists = podLists();
    await waitForMore('passes of why/nofit', () => hc.passesOf(`${NS}/nofit`), 2, { timeoutMs: 60_000 });
    assert.equal(podLists(), lists, 'passes after the watch synced read no Pods from the API');
    assert.match((await entryOf('nofit'))?.message ?? '', /Unschedulable/, 'still says why');

    // Fits now: Healthy, the message is the rule's alone, and the Pod watch stops with its last reader.
    await applyDeployment('nofit', undefined);
    const ok = await waitFor(
      'Healthy',
      async () => {
        const x = await entryOf('nofit');
        return x?.state === 'Healthy' && x;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    assert.equal(ok.message, `healthy (rule ${RULE})`);
    assert.equal(watches.cachedPods(loopClient, NS), undefined, 'the Pod watch stopped');
  });
});
