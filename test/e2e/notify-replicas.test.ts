// Notifications from two controller-manager replicas (leader election on the shard Lease) on the real
// control plane: only the replica holding the shard delivers and writes statuses (the standby neither
// sends nor rewrites a Provider's condition or an Alert's ledger), and a graceful failover (SIGTERM of the
// holder) hands the shard over with the ledger written: the replica taking over sends the next rollout's
// messages and none the first replica delivered. A loopback server captures what is sent. One control
// plane for the file.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Alert, Provider } from '../../src/api/types.ts';
import { factKey } from '../../src/notify/facts.ts';
import { controllerLeaseName } from '../../src/runtime/index.ts';
import { alert, captureServer, messages, provider } from '../support/notify.ts';
import { type ManagerProcess, startControllerManager } from '../support/processes.ts';
import { deployment, gitRelease, inRolloutScenario, reached } from '../support/rollout.ts';
import { convoySystemPerFile, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'notify-a' });

const holds = async (m: ManagerProcess) =>
  (await m.metric('convoy_shard_leases_held', { lease: controllerLeaseName(0) })) === 1;

test('two replicas: every transition is delivered once, by the holder of the shard, across a graceful failover', () =>
  inRolloutScenario(env, 'nr-failover', 'main', async ({ ns, repo, waitForRollout }) => {
    const { client } = env;
    const hook = await captureServer();
    let b: ManagerProcess | undefined;
    try {
      // The standby starts before the Alert exists, so whatever it remembered of the ledger is from then.
      b = await startControllerManager({
        kubeconfigPath: env.cp.kubeconfigPath,
        identity: 'notify-b',
        leaseNamespace: LEASE_NS,
        gitCacheDir: join(env.work, 'git-cache-b'),
        api: { kind: 'off' },
        tenancy: { mode: 'cluster' },
      });
      const standby = b;
      await waitFor('replica a holds the shard', () => holds(env.manager));
      assert.equal(await holds(standby), false, 'replica b stands by');

      await client.create(provider(ns, 'webhook', { type: 'generic', address: `${hook.url}/hook` }));
      await client.create(alert(ns, 'all', { providerRef: { name: 'webhook' } }));
      const sha1 = await repo.commit({ 'app/web.yaml': deployment('web', 'v1', 'healthy') });
      await client.create(gitRelease(ns, 'app', repo));
      const r1 = await waitForRollout('Succeeded(commit 1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef ?? '';
      const succeeded1 = factKey(r1.metadata.uid ?? '', 'rollout', 'Succeeded', R1);
      const sent = () =>
        messages(hook.seen, ns)
          .filter((m) => ['Progressing', 'Succeeded', 'Failed', 'RolledBack'].includes(m.event))
          .map((m) => `${m.event}:${m.renderRef === R1 ? 'R1' : 'R2'}`);
      const getAlert = () =>
        client.get<Alert>({ apiVersion: API_VERSION, kind: 'Alert', namespace: ns, name: 'all' });
      const getProvider = () =>
        client.get<Provider>({ apiVersion: API_VERSION, kind: 'Provider', namespace: ns, name: 'webhook' });
      // Delivered, and written down in the ledger by replica a.
      await waitFor(
        'Succeeded(R1) delivered and in the ledger',
        async () =>
          sent().includes('Succeeded:R1') &&
          (await getAlert())?.status?.notified?.some((e) => e.key === succeeded1) === true &&
          (await getProvider())?.status?.conditions?.some((c) => c.reason === 'Delivered'),
        { timeoutMs: 30_000 },
      ).catch((err: Error) => assert.fail(`${err.message}\n${JSON.stringify(sent())}\n${env.logs()}`));
      // Steady: neither replica rewrites the Provider's status (a standby that wrote its own view, "no
      // message sent yet", would flip it every second).
      const before = (await getProvider())?.metadata.resourceVersion;
      await env.manager.moreReconciles(4);
      assert.equal((await getProvider())?.metadata.resourceVersion, before, 'the Provider status stays put');
      assert.equal(await standby.metric('convoy_notify_deliveries_total'), 0, 'the standby sent nothing');

      // Graceful failover: replica a finishes its deliveries, writes the ledger, releases the shard.
      await env.manager.stop();
      await waitFor('replica b holds the shard', () => holds(standby), { timeoutMs: 30_000 });
      const sha2 = await repo.commit({ 'app/web.yaml': deployment('web', 'v2', 'healthy') });
      await waitForRollout('Succeeded(commit 2) by replica b', reached('Succeeded', sha2), 90_000);
      await waitFor('Succeeded(R2) delivered', async () => sent().includes('Succeeded:R2'), {
        timeoutMs: 30_000,
      }).catch((err: Error) =>
        assert.fail(`${err.message}\n${JSON.stringify(sent())}\n${standby.log().slice(-4000)}`),
      );
      await standby.moreReconciles(3);
      assert.deepEqual(sent(), ['Progressing:R1', 'Succeeded:R1', 'Progressing:R2', 'Succeeded:R2']);
    } finally {
      await b?.stop();
      await hook.stop();
    }
  }));
