// Verification end to end (docs/design.md#verification, docs/rollouts.md#verification), on the real control
// plane with a real Prometheus scraping the traffic simulator, whose error rate the render's own ConfigMap
// `traffic` sets: every Pod stays Ready while the error rate climbs, as in the releases that hurt.
// - a healthy render passes its soak → Succeeded, Verified=True;
// - a render whose error rate climbs → RolledBack, reason VerificationFailed, naming the check, the query
//   and the value; the whole last healthy render is back (its ConfigMap too) and the error rate falls;
// - Prometheus killed mid-soak → Inconclusive, held, no rollback; back → the soak resumes → Succeeded;
// - approving a held render accepts it (accepted-render).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Release } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { type Fixture, makeRepo } from '../../src/render/git/testsupport.ts';
import { startPrometheus, type TestPrometheus } from '../../src/testenv/prometheus.ts';
import { startTrafficSim, type TrafficSim } from '../../src/testenv/traffic-sim.ts';
import { getInventory, getRelease } from '../support/release.ts';
import { gitRelease, liveConfigMap, liveTag, reached, trafficApp } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { verificationWaits } from '../support/verification.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'verify';
const ERROR_RATIO = 'sum(rate(http_requests_total{code="500"}[4s])) / sum(rate(http_requests_total[4s]))';
let sim: TrafficSim;
let prom: TestPrometheus;
let repo: Fixture;

const env = convoySystemPerFile({
  identity: 'verification',
  // In the file's one before(): the simulator reads the render's ConfigMap through its own client, as a
  // workload would, and a real Prometheus scrapes it.
  setUp: async (sys) => {
    await sys.namespace(NS);
    repo = await makeRepo('verification');
    sim = await startTrafficSim({
      source: {
        kind: 'configMap',
        client: new KubeClient(sys.cp.kubeConfig),
        namespace: NS,
        name: 'traffic',
      },
    });
    prom = await startPrometheus({ targets: [sim.target] });
  },
});
after(async () => {
  await prom?.stop();
  await sim?.stop();
  await repo?.cleanup();
});

function release(name: string): Release {
  return gitRelease(NS, name, repo, {
    failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
    verification: {
      soak: '15s',
      interval: '1s',
      // The query's 4 s window then covers the new render only.
      initialDelay: '5s',
      checks: [
        {
          name: 'error-rate',
          prometheus: { address: prom.url, query: ERROR_RATIO, timeout: '3s' },
          successCondition: 'result[0] <= 0.05',
          failureCondition: 'result[0] > 0.05',
          failureLimit: 1,
          inconclusiveLimit: 2,
        },
      ],
    },
  });
}

const { rolloutOf, rolledBack } = verificationWaits(env);

const verified = (r: Release | undefined) => r?.status?.conditions?.find((c) => c.type === 'Verified');

test('a healthy render passes its soak; a render whose error rate climbs is rolled back whole', async () => {
  const sha1 = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(release('app'));
  const r1 = await rolloutOf(NS, 'Succeeded(R1) after its soak', reached('Succeeded', sha1));
  const R1 = r1.status?.rollout?.renderRef;
  assert.equal(verified(r1)?.status, 'True', JSON.stringify(verified(r1)));
  const inv1 = await getInventory(env.client, NS, 'app');
  assert.equal(inv1?.verification?.renderRef, R1);
  assert.equal(inv1?.verification?.phase, 'Passed');
  const check1 = inv1?.verification?.checks?.find((c) => c.name === 'error-rate');
  assert.ok((check1?.successful ?? 0) >= 2, JSON.stringify(check1));
  assert.equal(check1?.failed, 0);
  // the soak ran its length: Succeeded no earlier than startedAt + 15 s
  const soakStart = Date.parse(inv1?.verification?.startedAt ?? '');
  assert.ok(
    Date.parse(r1.status?.rollout?.finishedAt ?? '') >= Math.floor((soakStart + 15_000) / 1000) * 1000,
  );

  // R2: every Pod Ready, but its ConfigMap makes 30 % of requests fail.
  const sha2 = await repo.commit(trafficApp('v2', '0.3'));
  const { release: rb, message: msg } = await rolledBack(NS, sha2, 'RolledBack(R2) by the metric');
  assert.match(msg, /error-rate/, msg);
  assert.match(msg, /result\[0\] > 0\.05/, msg);
  assert.match(msg, /http_requests_total/, msg);
  const value = Number(/error-rate: \[([0-9.]+)\]/.exec(msg)?.[1]);
  assert.ok(value > 0.05 && value <= 0.35, `the measured value: ${msg}`);
  // The whole last healthy render is back, ConfigMap and all, and the error rate falls with it.
  await waitFor('R1 live again, ConfigMap and all', async () => {
    const cm = await liveConfigMap(env.client, NS, 'traffic');
    return (await liveTag(env.client, NS, 'web')) === 'v1' && cm?.data?.errorRate === '0';
  });
  assert.equal(rb.status?.lastSuccessful?.renderRef, R1);
  await waitFor('the simulator back to no errors', async () => sim.settings().errorRate === 0);
  await waitFor('Prometheus to see the error rate fall', async () => {
    const [v] = await prom.query(ERROR_RATIO);
    return v !== undefined && v.value < 0.01;
  });
});

test('Prometheus down mid-soak holds the rollout as inconclusive, never rolls back, and resumes', async () => {
  const sha3 = await repo.commit(trafficApp('v3', '0'));
  await waitFor(
    'R3 soaking with a good measurement',
    async () => {
      const r = await getRelease(env.client, NS, 'app');
      const st = (await getInventory(env.client, NS, 'app'))?.verification;
      const ok =
        r?.status?.rollout?.revision === sha3 &&
        st?.renderRef === r.status.rollout.renderRef &&
        st.phase === 'Running' &&
        (st.checks?.[0]?.successful ?? 0) >= 1;
      // Thrown, so that a timeout says where the rollout and its verification stood.
      if (!ok) throw new Error(JSON.stringify({ rollout: r?.status?.rollout, verification: st }));
      return true;
    },
    { timeoutMs: 120_000 },
  );

  await prom.kill();
  const held = await env.waitForRelease(
    NS,
    'app',
    'Verified=False VerificationInconclusive',
    (r) => verified(r)?.reason === 'VerificationInconclusive',
  );
  assert.equal(held.status?.rollout?.state, 'Progressing');
  assert.match(verified(held)?.message ?? '', /error-rate/);
  // Held past the soak and more reconciles: still Progressing, R3 live.
  await env.manager.moreReconciles(3);
  const still = await getRelease(env.client, NS, 'app');
  assert.equal(still?.status?.rollout?.state, 'Progressing', JSON.stringify(still?.status?.rollout));
  assert.equal(await liveTag(env.client, NS, 'web'), 'v3');

  await prom.restart();
  const ok = await rolloutOf(NS, 'Succeeded(R3) once Prometheus is back', reached('Succeeded', sha3));
  assert.equal(verified(ok)?.status, 'True');
});
