import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../../test/support/wait.ts';
import type { VerificationSpec } from '../api/schema/verification.ts';
import { jobMeasured, measure, type SecretLookup } from './measure.ts';
import type { QueryOutcome } from './prometheus.ts';
import { type ResolvedCheck, resolveChecks } from './resolve.ts';
import { SharedCalls } from './shared-calls.ts';
import { sendJson, startServer } from './testsupport.ts';

const secretData: Readonly<Record<string, string>> = {
  'prom/token': 'tok3n',
  'tok/value': 'argsecret',
  'hdr/v': 'hdrsecret',
};
const secrets: SecretLookup = (ref) => secretData[`${ref.name}/${ref.key}`];

const resolve = (spec: VerificationSpec): readonly ResolvedCheck[] => {
  const r = resolveChecks(spec);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.checks;
};

test('measure: a Prometheus check, judged, with one query per interval shared', async (t) => {
  let errorRate = '0.072';
  const server = await startServer((req, res) => {
    if (req.headers.authorization !== 'Bearer tok3n') sendJson(res, 401, { status: 'error', error: 'no' });
    else
      sendJson(res, 200, {
        status: 'success',
        data: { resultType: 'vector', result: [{ value: [1, errorRate] }] },
      });
  });
  t.after(() => server.close());
  const [check] = resolve({
    soak: '1m',
    checks: [
      {
        name: 'error-rate',
        prometheus: {
          address: server.url,
          query: 'sum(rate(errors{app="{{args.app}}",k="{{args.key}}"}[1m]))',
          bearerTokenSecretRef: { name: 'prom', key: 'token' },
        },
        failureCondition: 'result[0] > 0.01',
      },
    ],
    args: [
      { name: 'app', value: 'checkout' },
      { name: 'key', valueFrom: { secretKeyRef: { name: 'tok', key: 'value' } } },
    ],
  });
  assert.ok(check);
  const prometheusCalls = new SharedCalls<QueryOutcome>();
  const deps = { prometheusCalls, now: () => Date.parse('2026-12-06T12:03:10Z') };
  const m = await measure(check, secrets, deps);
  assert.deepEqual(m, {
    atMs: Date.parse('2026-12-06T12:03:10Z'),
    phase: 'Failed',
    value: '[0.072]',
    decided: 'met failureCondition `result[0] > 0.01`',
    condition: 'result[0] > 0.01',
  });
  assert.equal(
    new URLSearchParams(server.seen[0]?.body).get('query'),
    'sum(rate(errors{app="checkout",k="argsecret"}[1m]))',
  );
  errorRate = '0.001';
  assert.equal(
    (await measure(check, secrets, deps)).phase,
    'Failed',
    'the same query within the interval is not sent again',
  );
  assert.equal(server.seen.length, 1);
  assert.equal((await measure(check, secrets)).phase, 'Successful', 'without the shared calls it is sent');
  // At a 1 s interval the next measurement may come a whole-second rounding early: nothing is reused.
  const [everySecond] = resolve({
    soak: '1m',
    interval: '1s',
    checks: [{ ...check.spec }],
    args: check.args.slice(),
  });
  assert.ok(everySecond);
  const before = server.seen.length;
  const fresh = { ...deps, prometheusCalls: new SharedCalls<QueryOutcome>() };
  await measure(everySecond, secrets, fresh);
  await measure(everySecond, secrets, fresh);
  assert.equal(server.seen.length, before + 2, 'each measurement at a 1 s interval asks Prometheus');
  const missing = await measure(check, () => undefined);
  assert.deepEqual([missing.phase, missing.message], ['Error', 'arg key: Secret tok has no key value']);
});

test("measure: one Release's aborted pass never becomes the shared answer of a query", async (t) => {
  const held: Array<() => void> = [];
  const server = await startServer((_req, res) => {
    held.push(() =>
      sendJson(res, 200, {
        status: 'success',
        data: { resultType: 'vector', result: [{ value: [1, '0.001'] }] },
      }),
    );
  });
  t.after(() => server.close());
  const [check] = resolve({
    soak: '1m',
    checks: [
      {
        name: 'error-rate',
        prometheus: { address: server.url, query: 'errors' },
        failureCondition: 'result[0] > 0.01',
      },
    ],
  });
  assert.ok(check);
  const prometheusCalls = new SharedCalls<QueryOutcome>();
  const aborted = new AbortController();
  const first = measure(check, secrets, { prometheusCalls, signal: aborted.signal });
  const joined = measure(check, secrets, { prometheusCalls });
  await waitFor('the query at Prometheus', async () => held.length === 1);
  aborted.abort(new Error('superseded'));
  assert.equal((await first).phase, 'Error', 'the aborted pass stops waiting');
  held[0]?.();
  assert.equal((await joined).phase, 'Successful', 'the Release that joined gets the answer');
  assert.equal(
    (await measure(check, secrets, { prometheusCalls })).phase,
    'Successful',
    'and so does the next',
  );
  assert.equal(server.seen.length, 1, 'one query for the three');
});

test('measure: a web check with a Secret header; errors never show a secret', async (t) => {
  const server = await startServer((req, res) => {
    if (req.url?.startsWith('/echo')) sendJson(res, 500, { seen: req.headers['x-key'] });
    else sendJson(res, 200, { data: { ok: req.headers['x-key'] === 'hdrsecret', successPercent: 0.95 } });
  });
  t.after(() => server.close());
  const [ok, failing] = resolve({
    soak: '1m',
    checks: [
      {
        name: 'web',
        web: {
          url: `${server.url}/measure`,
          headers: [{ name: 'x-key', valueFrom: { secretKeyRef: { name: 'hdr', key: 'v' } } }],
          jsonPath: '{$.data}',
        },
        successCondition: 'result.ok && result.successPercent >= 0.90',
      },
      {
        name: 'echo',
        web: { url: `${server.url}/echo?k={{args.k}}`, headers: [{ name: 'x-key', value: '{{args.k}}' }] },
        successCondition: 'true',
      },
    ],
    args: [{ name: 'k', valueFrom: { secretKeyRef: { name: 'hdr', key: 'v' } } }],
  });
  assert.ok(ok && failing);
  const m = await measure(ok, secrets);
  assert.deepEqual([m.phase, m.value], ['Successful', '{"ok":true,"successPercent":0.95}']);
  const e = await measure(failing, secrets);
  assert.equal(e.phase, 'Error');
  assert.ok(!JSON.stringify(e).includes('hdrsecret'), JSON.stringify(e));
});

test('jobMeasured', () => {
  assert.deepEqual(jobMeasured(1, 'succeeded'), {
    atMs: 1,
    phase: 'Successful',
    decided: 'the Job succeeded',
  });
  assert.deepEqual(jobMeasured(1, 'failed', 'exit 1'), {
    atMs: 1,
    phase: 'Failed',
    decided: 'the Job failed: exit 1',
  });
  assert.deepEqual(jobMeasured(1, 'timeout', 'within 5m'), {
    atMs: 1,
    phase: 'Error',
    message: 'the Job did not finish: within 5m',
  });
});

test('measure: prometheus headers reach Prometheus on every query; tenants never share an answer', async (t) => {
  // Answers per tenant, as a multi-tenant Prometheus (Cortex, Mimir, Thanos) does by X-Scope-OrgID.
  const rates: Readonly<Record<string, string>> = { tenant_a: '0.5', tenant_b: '0.001' };
  const server = await startServer((req, res) => {
    const rate = rates[String(req.headers['x-scope-orgid'])];
    if (rate === undefined || req.headers['x-team'] !== 'hdrsecret')
      sendJson(res, 401, { status: 'error', error: 'no tenant' });
    else
      sendJson(res, 200, {
        status: 'success',
        data: { resultType: 'vector', result: [{ value: [1, rate] }] },
      });
  });
  t.after(() => server.close());
  const tenantCheck = (tenant: string) =>
    resolve({
      soak: '1m',
      args: [{ name: 'tenant', value: tenant }],
      checks: [
        {
          name: 'error-rate',
          prometheus: {
            address: server.url,
            query: 'sum(rate(errors[1m]))',
            headers: [
              { name: 'X-Scope-OrgID', value: '{{args.tenant}}' },
              { name: 'X-Team', valueFrom: { secretKeyRef: { name: 'hdr', key: 'v' } } },
            ],
          },
          failureCondition: 'result[0] > 0.01',
        },
      ],
    })[0] as ResolvedCheck;
  const deps = { prometheusCalls: new SharedCalls<QueryOutcome>() };
  const a = await measure(tenantCheck('tenant_a'), secrets, deps);
  const b = await measure(tenantCheck('tenant_b'), secrets, deps);
  assert.deepEqual([a.phase, a.value, b.phase, b.value], ['Failed', '[0.5]', 'Successful', '[0.001]']);
  assert.deepEqual(
    server.seen.map((s) => [s.headers['x-scope-orgid'], s.headers['x-team']]),
    [
      ['tenant_a', 'hdrsecret'],
      ['tenant_b', 'hdrsecret'],
    ],
    'each tenant asked once, with its headers',
  );
  assert.equal((await measure(tenantCheck('tenant_a'), secrets, deps)).value, '[0.5]');
  assert.equal(server.seen.length, 2, "tenant_a's answer is shared with tenant_a only");
  // A Secret value that cannot be a header (a line break would add a header of its own) is not sent.
  const bad = await measure(tenantCheck('tenant_a'), (ref) =>
    ref.name === 'hdr' ? 'x\r\nX-Evil: 1' : undefined,
  );
  assert.deepEqual(
    [bad.phase, bad.message],
    [
      'Error',
      'header X-Team: the value of Secret hdr key v is not a header value (at most 4096 printable ASCII characters)',
    ],
  );
  assert.equal(server.seen.length, 2);
});
