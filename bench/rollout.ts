// npm run bench:rollout — how quickly the rollout state machine reacts, with convoy-controller-manager
// and convoy-observer as child processes on one local control plane with kwok. Per run (own namespace,
// git source, syncPolicy.interval 5m so only the rollout wake-ups count, a /sync-style annotation after
// each commit as a webhook would send): a Deployment Ready 3 s after it is applied → seconds from its pod
// turning Ready to Succeeded; then a render whose pods never become Ready (and a changed ConfigMap) →
// seconds from the rollout deadline (status.rollout.startedAt + failurePolicy.deadline, as the controller
// counts it) to the last healthy render's Deployment and ConfigMap being live again. Times are taken from
// watch events as this process receives them. Also: seconds from the observer writing every inventory
// entry Healthy to Succeeded (the controller's share; the rest is the observer's recheck backoff, since it
// does not watch target objects). Prints the medians of BENCH_RUNS runs (default 5).
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION, PLURAL_INVENTORIES } from '../src/api/constants.ts';
import type { RolloutState } from '../src/api/types.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { makeRepo } from '../src/render/git/testsupport.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { Informer } from '../src/runtime/informer.ts';
import { Transport } from '../src/runtime/transport.ts';
import { recordRollouts } from '../test/support/recorder.ts';
import { cm, mergePatch, releaseRef } from '../test/support/release.ts';
import { deadlineOf, deployment, gitRelease, reached, waitForRollout } from '../test/support/rollout.ts';
import { type ConvoySystem, startConvoySystem } from '../test/support/system.ts';
import { waitFor } from '../test/support/wait.ts';
import { median, secs } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DEADLINE = '8s';

type Watched = KubeObject & {
  data?: Record<string, string>;
  entries?: { state?: string }[];
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
  status?: { conditions?: { type: string; status: string }[] };
  metadata: KubeObject['metadata'] & { annotations?: Record<string, string> };
};

/** First local time at which `ok` held for an object of the collection, after `arm()` was called. */
function firstTime(env: ConvoySystem, path: string) {
  const inf = new Informer<Watched>(new Transport(env.cp.kubeConfig), { path });
  const checks: { ok: (o: Watched) => boolean; at?: number }[] = [];
  const see = (o: Watched) => {
    for (const c of checks) if (c.at === undefined && c.ok(o)) c.at = Date.now();
  };
  inf.addHandlers({ add: see, update: (_o, n) => see(n) });
  return {
    start: async () => {
      inf.start();
      await inf.waitForSync();
    },
    arm(ok: (o: Watched) => boolean) {
      const c: { ok: (o: Watched) => boolean; at?: number } = { ok };
      checks.push(c);
      for (const o of inf.cache.list()) see(o);
      return () => c.at;
    },
    stop: () => inf.stop(),
  };
}

const env = await startConvoySystem({ identity: 'bench-rollout' });
const readyToSucceeded: number[] = [];
const deadlineToLive: number[] = [];
const deadlineToRolledBack: number[] = [];
const healthyToSucceeded: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const { client, cp } = env;
    const ns = `bench-rollout-${run}`;
    const rolloutReached = (what: string, state: RolloutState, sha: string) =>
      waitForRollout(client, ns, 'app', what, reached(state, sha), 120_000);
    await env.namespace(ns);
    const repo = await makeRepo(`bench-${run}`);
    const pods = firstTime(env, `/api/v1/namespaces/${ns}/pods`);
    const deploys = firstTime(env, `/apis/apps/v1/namespaces/${ns}/deployments`);
    const cms = firstTime(env, `/api/v1/namespaces/${ns}/configmaps`);
    const invs = firstTime(env, `/apis/${API_VERSION}/namespaces/${ns}/${PLURAL_INVENTORIES}`);
    await Promise.all([pods.start(), deploys.start(), cms.start(), invs.start()]);
    const log = await recordRollouts(cp, ns, 'app');
    const poke = () =>
      mergePatch(client, releaseRef(ns, 'app'), {
        metadata: { annotations: { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() } },
      });
    try {
      const sha1 = await repo.commit({
        'app/web.yaml': deployment('web', 'v1', { readyAfter: '3s' }),
        'app/cfg.yaml': cm('cfg', { v: '1' }),
      });
      const podReady = pods.arm(
        (p) =>
          p.metadata.annotations?.['example.com/tag'] === 'v1' &&
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      );
      const invHealthy = invs.arm(
        (i) => (i.entries ?? []).length === 2 && (i.entries ?? []).every((e) => e.state === 'Healthy'),
      );
      await client.create(
        gitRelease(ns, 'app', repo, {
          syncPolicy: { interval: '5m' },
          failurePolicy: { deadline: DEADLINE, rollback: 'OnFailure' },
        }),
      );
      const r1 = await rolloutReached('Succeeded(R1)', 'Succeeded', sha1);
      const succeededAt = log.seen.find(
        (s) => s.rollout?.state === 'Succeeded' && s.rollout.renderRef === r1.status?.rollout?.renderRef,
      )?.at;
      const readyAt = podReady();
      const healthyAt = invHealthy();
      if (succeededAt === undefined || readyAt === undefined || healthyAt === undefined)
        throw new Error('missing timestamps (run 1)');
      readyToSucceeded.push(succeededAt - readyAt);
      healthyToSucceeded.push(succeededAt - healthyAt);

      const sha2 = await repo.commit({
        'app/web.yaml': deployment('web', 'v2', 'never-ready'),
        'app/cfg.yaml': cm('cfg', { v: '2' }),
      });
      await poke();
      const r2Live = deploys.arm((d) => tagOf(d) === 'v2');
      await waitFor('R2 applied', async () => r2Live() !== undefined, { timeoutMs: 60_000 });
      const deployBack = deploys.arm((d) => tagOf(d) === 'v1');
      const cmBack = cms.arm((c) => c.metadata.name === 'cfg' && c.data?.v === '1');
      const rb = await rolloutReached('RolledBack(R2)', 'RolledBack', sha2);
      const deadline = deadlineOf(rb.status?.rollout, DEADLINE);
      const live = await waitFor('R1 live again', async () => {
        const a = deployBack();
        const b = cmBack();
        return a !== undefined && b !== undefined && Math.max(a, b);
      });
      const rolledBackAt = log.seen.find((s) => s.rollout?.state === 'RolledBack')?.at ?? Number.NaN;
      deadlineToLive.push(live - deadline);
      deadlineToRolledBack.push(rolledBackAt - deadline);
      console.error(
        `run ${run + 1}: pod Ready → Succeeded ${secs(succeededAt - readyAt)} s (inventory Healthy → Succeeded ${secs(succeededAt - healthyAt)} s); deadline → R1 live ${secs(live - deadline)} s`,
      );
    } finally {
      log.stop();
      pods.stop();
      invs.stop();
      deploys.stop();
      cms.stop();
      await repo.cleanup();
    }
  }
  console.log(
    JSON.stringify(
      {
        runs: RUNS,
        failurePolicyDeadline: DEADLINE,
        medianSecondsLastPodReadyToSucceeded: secs(median(readyToSucceeded)),
        medianSecondsInventoryHealthyToSucceeded: secs(median(healthyToSucceeded)),
        medianSecondsDeadlineToLastHealthyLive: secs(median(deadlineToLive)),
        medianSecondsDeadlineToRolledBackStatus: secs(median(deadlineToRolledBack)),
        allReadyToSucceeded: readyToSucceeded.map(secs),
        allDeadlineToLastHealthyLive: deadlineToLive.map(secs),
      },
      null,
      2,
    ),
  );
} catch (err) {
  // A failed run is reported with what both processes logged: the figures are void, the cause is not.
  console.error(`${errorMessage(err)}\n${env.logs()}`);
  process.exitCode = 1;
} finally {
  await env.stop();
}

function tagOf(d: Watched): string | undefined {
  return d.spec?.template?.metadata?.annotations?.['example.com/tag'];
}
