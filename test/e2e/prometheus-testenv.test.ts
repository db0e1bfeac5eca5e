// The verification tests' metrics stack on real processes: the traffic simulator scraped by a real
// Prometheus (Debian's 2.42, src/testenv/prometheus.ts), its error rate set in-process and — as a
// render and its rollback would — through a ConfigMap on the real control plane.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KubeClient } from '../../src/kube/client.ts';
import { isAlive, startControlPlane } from '../../src/testenv/index.ts';
import { PrometheusStartError, startPrometheus, type TestPrometheus } from '../../src/testenv/prometheus.ts';
import { startTrafficSim } from '../../src/testenv/traffic-sim.ts';
import { waitFor } from '../support/wait.ts';

const ERROR_RATIO = 'sum(rate(http_requests_total{code="500"}[10s])) / sum(rate(http_requests_total[10s]))';
const P50 = 'histogram_quantile(0.5, sum by (le) (rate(http_request_duration_seconds_bucket[10s])))';

/** Polls `expr` until its one value satisfies `ok`: a 10 s window moves within ~15 s of a change. */
function waitForValue(prom: TestPrometheus, what: string, expr: string, ok: (v: number) => boolean) {
  return waitFor(
    what,
    async () => {
      const samples = await prom.query(expr);
      const [first] = samples;
      // Thrown, so that a timeout names where the value stood.
      if (samples.length !== 1 || first === undefined) throw new Error(`${samples.length} samples`);
      if (!ok(first.value)) throw new Error(`value ${first.value}`);
      return { value: first.value };
    },
    { timeoutMs: 45_000, intervalMs: 500 },
  );
}

test('the error ratio Prometheus measures follows the simulator set in-process', async (t) => {
  const sim = await startTrafficSim({});
  t.after(() => sim.stop());
  const prom = await startPrometheus({ targets: [sim.target] });
  t.after(() => prom.stop());
  assert.deepEqual(prom.targets(), [sim.target]);

  sim.set({ errorRate: 0.2, latencyMs: 300 });
  await waitForValue(prom, 'the error ratio near 0.2', ERROR_RATIO, (v) => v > 0.1 && v < 0.3);
  await waitForValue(prom, 'the median latency near 0.3 s', P50, (v) => v > 0.25 && v <= 0.5);

  sim.set({ errorRate: 0, latencyMs: 20 });
  await waitForValue(prom, 'the error ratio below 0.05', ERROR_RATIO, (v) => v < 0.05);
  await assert.rejects(prom.query('sum(('), /parse error/);

  // As the chaos suite and a mid-soak failure do: killed, it refuses; restarted, it has its data and scrapes on.
  const pid = prom.pid;
  await prom.kill();
  assert.equal(isAlive(pid), false);
  await assert.rejects(prom.query('up'), /ECONNREFUSED/);
  await prom.restart();
  assert.notEqual(prom.pid, pid);
  const [before] = await prom.query('count_over_time(up[5m])');
  assert.ok(before !== undefined && before.value > 0, 'the samples from before the kill are kept');
  await waitForValue(prom, 'scrapes after the restart', 'count_over_time(up[5m])', (v) => v > before.value);
});

test('a ConfigMap drives the simulator: created, refused, deleted', async (t) => {
  const cp = await startControlPlane({});
  t.after(() => cp.stop());
  const client = new KubeClient(cp.kubeConfig);
  const ns = 'traffic';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cm = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'traffic', namespace: ns },
    data,
  });

  const sim = await startTrafficSim({
    source: { kind: 'configMap', client, namespace: ns, name: 'traffic' },
  });
  t.after(() => sim.stop());
  assert.deepEqual(sim.settings(), { errorRate: 0, latencyMs: 20 }, 'no ConfigMap: no errors');
  assert.throws(() => sim.set({ errorRate: 1 }), /ConfigMap traffic\/traffic; change that instead/);
  const prom = await startPrometheus({});
  t.after(() => prom.stop());
  // Started without targets, as `convoy dev` may before its simulator exists.
  await prom.addTarget(sim.target);

  await client.create(cm({ errorRate: '0.2', latencyMs: '50' }));
  await waitFor('the simulator to read errorRate 0.2', async () => sim.settings().errorRate === 0.2);
  await waitForValue(prom, 'the error ratio near 0.2', ERROR_RATIO, (v) => v > 0.1 && v < 0.3);

  await client.replace(cm({ errorRate: 'high' }));
  const problem = await waitFor('the simulator to refuse errorRate "high"', async () =>
    sim.problem()?.includes('"high"') ? sim.problem() : undefined,
  );
  assert.equal(problem, 'ConfigMap traffic/traffic: data.errorRate "high" is not a number from 0 to 1');
  assert.deepEqual(
    sim.settings(),
    { errorRate: 0.2, latencyMs: 50 },
    'a refused value keeps the last good one',
  );

  await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'traffic' });
  // The read that finds no ConfigMap also clears the refusal.
  await waitFor(
    'the simulator back to no errors, nothing refused',
    async () => sim.settings().errorRate === 0 && sim.problem() === undefined,
  );
  await waitForValue(prom, 'the error ratio below 0.05', ERROR_RATIO, (v) => v < 0.05);
});

test('a Prometheus that never becomes ready is killed, and its dir removed', async (t) => {
  const work = await mkdtemp(join(tmpdir(), 'convoy-prometheus-e2e-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  // Stands in for a Prometheus that hangs while starting: it answers nothing and would live 10 minutes.
  const fake = join(work, 'prometheus');
  await writeFile(fake, `#!/bin/sh\necho $$ > ${join(work, 'pid')}\nexec sleep 600\n`);
  await chmod(fake, 0o755);
  const err = await startPrometheus({ binary: fake, timeoutMs: 1500 }).then(
    () => assert.fail('a binary that never listens started'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof PrometheusStartError, String(err));
  assert.match(err.message, /did not become ready at http:\/\/127\.0\.0\.1:\d+/);
  const pid = Number(await readFile(join(work, 'pid'), 'utf8'));
  assert.equal(isAlive(pid), false, `pid ${pid} still runs`);
  const dir = /\(no log at (\/\S+)\/prometheus\.log\)|of (\/\S+)\/prometheus\.log ---/.exec(err.message);
  const left = dir?.[1] ?? dir?.[2];
  assert.ok(left !== undefined, err.message);
  assert.equal(existsSync(left), false, `${left} is left behind`);
});
