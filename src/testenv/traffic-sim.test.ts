import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../../test/support/wait.ts';
import { request } from './http.ts';
import { startTrafficSim } from './traffic-sim.ts';

function sample(metrics: string, series: string): number {
  const escaped = series.replace(/[{}."+]/g, (c) => `\\${c}`);
  const m = new RegExp(`^${escaped} (\\d+(?:\\.\\d+)?)$`, 'm').exec(metrics);
  assert.ok(m, `no ${series} in:\n${metrics}`);
  return Number(m[1]);
}

const total = (m: string) =>
  sample(m, 'http_requests_total{code="200"}') + sample(m, 'http_requests_total{code="500"}');

async function metrics(url: string): Promise<string> {
  const res = await request({ server: url }, 'GET', '/metrics');
  assert.equal(res.status, 200);
  return res.body;
}

test('the simulator spreads exactly errorRate of its requests as 500s, at the latency set', async (t) => {
  const sim = await startTrafficSim({ requestsPerSecond: 400, source: { kind: 'manual' } });
  t.after(() => sim.stop());
  const first = await waitFor('the first requests', async () => {
    const m = await metrics(sim.url);
    return total(m) > 0 && m;
  });
  assert.equal(sample(first, 'http_requests_total{code="500"}'), 0, 'no errors before errorRate is set');

  sim.set({ errorRate: 0.25, latencyMs: 300 });
  // Read after set(): every request counted from here on ran with the new settings.
  const base = await metrics(sim.url);
  const text = await waitFor('200 more requests', async () => {
    const m = await metrics(sim.url);
    return total(m) - total(base) >= 200 && m;
  });
  const n = total(text) - total(base);
  const errors =
    sample(text, 'http_requests_total{code="500"}') - sample(base, 'http_requests_total{code="500"}');
  assert.ok(Math.abs(errors - n * 0.25) <= 1, `${errors} errors of ${n}`);
  const bucket = (m: string, le: string) => sample(m, `http_request_duration_seconds_bucket{le="${le}"}`);
  assert.equal(bucket(text, '0.25'), bucket(base, '0.25'), 'no request since set() took under 0.25 s');
  assert.equal(bucket(text, '0.5') - bucket(base, '0.5'), n, 'every request since set() took under 0.5 s');
  // The same requests under Istio's names, for each reporter, as the Argo Rollouts docs' queries read them.
  for (const reporter of ['source', 'destination']) {
    const istio = (m: string, code: string) =>
      sample(
        m,
        `istio_requests_total{reporter="${reporter}",destination_service="${sim.istioService}",response_code="${code}"}`,
      );
    assert.equal(istio(text, '500'), sample(text, 'http_requests_total{code="500"}'), reporter);
    assert.equal(istio(text, '200'), sample(text, 'http_requests_total{code="200"}'), reporter);
    const ms = (m: string, le: string) =>
      sample(
        m,
        `istio_request_duration_milliseconds_bucket{le="${le}",reporter="${reporter}",destination_service="${sim.istioService}",response_code="200"}`,
      );
    assert.equal(ms(text, '250'), ms(base, '250'), 'no request since set() took under 250 ms');
    assert.equal(
      ms(text, '500') - ms(base, '500'),
      n - errors,
      'every success since set() took under 500 ms',
    );
  }
  assert.equal(sample(text, 'traffic_sim_error_rate'), 0.25);
  assert.equal(sample(text, 'traffic_sim_latency_seconds'), 0.3);

  assert.throws(() => sim.set({ errorRate: 2 }), /errorRate "2" is not a number from 0 to 1/);
  assert.deepEqual(sim.settings(), { errorRate: 0.25, latencyMs: 300 }, 'a refused value changes nothing');
  assert.equal((await request({ server: sim.url }, 'GET', '/')).status, 404);
});

test('stop closes the server, and a second stop is a no-op', async () => {
  const sim = await startTrafficSim({});
  assert.equal((await request({ server: sim.url }, 'GET', '/metrics')).status, 200);
  await sim.stop();
  await sim.stop();
  await assert.rejects(request({ server: sim.url }, 'GET', '/metrics', undefined, 2000), /ECONNREFUSED/);
});
