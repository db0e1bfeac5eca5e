import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import type { VerificationCheck, VerificationSpec } from '../api/schema/verification.ts';
import { resolveChecks, secretRefs } from './resolve.ts';

const argsExample = parse(
  readFileSync(new URL('argo/testdata/args-example.yaml', import.meta.url), 'utf8'),
) as unknown;

const errorRate = {
  name: 'error-rate',
  prometheus: {
    address: 'http://prometheus:9090',
    query: 'sum(rate(errors{app="{{args.app}}",token="{{args.token}}"}[1m]))',
    bearerTokenSecretRef: { name: 'prom', key: 'token' },
  },
  failureCondition: 'result[0] > 0.01',
  failureLimit: 2,
};

test('resolveChecks: spec checks and template metrics with their plans', () => {
  const spec: VerificationSpec = {
    soak: '5m',
    interval: '1m',
    checks: [errorRate],
    templateRefs: [{ name: 'args-example' }],
    args: [
      { name: 'app', value: 'checkout' },
      { name: 'token', valueFrom: { secretKeyRef: { name: 'tok', key: 'value' } } },
      { name: 'service-name', value: 'checkout-svc' },
      { name: 'stable-hash', value: 'a' },
      { name: 'latest-hash', value: 'b' },
    ],
  };
  const r = resolveChecks(spec, [argsExample]);
  assert.ok(r.ok, r.ok ? '' : r.message);
  assert.deepEqual(
    r.checks.map((c) => [c.plan, c.template]),
    [
      [
        {
          name: 'error-rate',
          provider: 'prometheus',
          shown: 'sum(rate(errors{app="checkout",token="{{args.token}}"}[1m]))',
          intervalMs: 60_000,
          failureLimit: 2,
          inconclusiveLimit: 0,
        },
        undefined,
      ],
      [
        {
          name: 'webmetric',
          provider: 'web',
          shown: 'http://example/measure?service=checkout-svc',
          intervalMs: 60_000,
          failureLimit: 0,
          inconclusiveLimit: 0,
        },
        'AnalysisTemplate args-example',
      ],
    ],
  );
  assert.deepEqual(secretRefs(r.checks[0] ?? assert.fail()), [
    { name: 'tok', key: 'value' },
    { name: 'prom', key: 'token' },
  ]);
  assert.deepEqual(secretRefs(r.checks[1] ?? assert.fail()), [{ name: 'token-secret', key: 'apiToken' }]);
});

test('resolveChecks: refusals name the field and the check', () => {
  const base: VerificationSpec = {
    soak: '5m',
    checks: [errorRate],
    args: [
      { name: 'app', value: 'x' },
      { name: 'token', value: 'y' },
    ],
  };
  const cases: [VerificationSpec, unknown[], string, string][] = [
    [
      { ...base, args: [{ name: 'app', value: 'x' }] },
      [],
      'spec.verification.checks[0]',
      'check error-rate: unknown arg token',
    ],
    [
      { ...base, checks: [{ ...errorRate, failureCondition: "result[0] > 'a' * 2" }] },
      [],
      'spec.verification.checks[0].failureCondition',
      "check error-rate, failureCondition, line 1, column 16: found no matching overload for '_*_' applied to '(string, int)'",
    ],
    [
      {
        ...base,
        checks: [{ name: 'w', web: { url: 'http://x', jsonPath: '$..a' }, successCondition: 'result' }],
      },
      [],
      'spec.verification.checks[0].web.jsonPath',
      'check w: jsonPath "$..a": "..a" is not supported (fields, [n] and [\'name\'] only)',
    ],
    [
      { ...base, interval: 'often' },
      [],
      'spec.verification.interval',
      'spec.verification.interval: "often" is not a duration greater than 0',
    ],
    [
      { ...base, checks: [errorRate, errorRate] },
      [],
      'spec.verification',
      'check error-rate is named twice (a check and a template metric?)',
    ],
    [
      { ...base, templateRefs: [{ name: 'args-example' }] },
      [argsExample],
      'spec.verification.args',
      'AnalysisTemplate args-example: arg service-name has no value; set it in spec.verification.args',
    ],
    [
      { ...base, templateRefs: [{ name: 'args-example', clusterScope: true }] },
      [argsExample],
      'spec.verification.templateRefs[0]',
      'want ClusterAnalysisTemplate args-example, got AnalysisTemplate args-example',
    ],
    [
      { ...base, templateRefs: [{ name: 'args-example' }] },
      [],
      'spec.verification.templateRefs',
      'want 1 templates, got 0',
    ],
    ...headerCases(base),
  ];
  for (const [spec, templates, field, message] of cases) {
    assert.deepEqual(resolveChecks(spec, templates), { ok: false, field, message }, message);
  }
});

/** Header refusals: the bounds again (templates never meet the CRD) and the names convoy sets itself. */
function headerCases(base: VerificationSpec): [VerificationSpec, unknown[], string, string][] {
  const withHeaders = (headers: unknown, auth = true): VerificationSpec => ({
    ...base,
    checks: [
      {
        ...errorRate,
        prometheus: {
          address: 'http://prometheus:9090',
          query: 'up',
          ...(auth ? { bearerTokenSecretRef: { name: 'prom', key: 'token' } } : {}),
          headers,
        } as VerificationCheck['prometheus'],
      },
    ],
  });
  const at = 'spec.verification.checks[0].prometheus.headers';
  return [
    [
      withHeaders(Array.from({ length: 33 }, (_, i) => ({ name: `X-${i}`, value: 'a' }))),
      [],
      at,
      'check error-rate: 33 headers; at most 32',
    ],
    [
      withHeaders([{ name: 'Authorization', value: 'Bearer x' }]),
      [],
      `${at}[0]`,
      'check error-rate: header Authorization is set by convoy for this check',
    ],
    [
      withHeaders([{ name: 'Content-Type', value: 'text/plain' }], false),
      [],
      `${at}[0]`,
      'check error-rate: header Content-Type is set by convoy for this check',
    ],
    [
      withHeaders([
        { name: 'X-Scope-OrgID', value: 'a' },
        { name: 'x-scope-orgid', value: 'b' },
      ]),
      [],
      `${at}[1]`,
      'check error-rate: header x-scope-orgid is named twice',
    ],
    [
      withHeaders([{ name: 'X-Scope-OrgID', value: 'a\r\nX-Other: b' }]),
      [],
      `${at}[0]`,
      'check error-rate: header X-Scope-OrgID value must be at most 4096 printable ASCII characters',
    ],
    [
      withHeaders([{ name: 'X-Scope-OrgID', value: 'x'.repeat(4097) }]),
      [],
      `${at}[0]`,
      'check error-rate: header X-Scope-OrgID value must be at most 4096 printable ASCII characters',
    ],
    [
      withHeaders([{ name: 'X Scope', value: 'a' }]),
      [],
      `${at}[0]`,
      'check error-rate: header X Scope is not a header name',
    ],
    [
      withHeaders([{ name: 'X-Scope-OrgID' }]),
      [],
      `${at}[0]`,
      'check error-rate: header X-Scope-OrgID needs value or valueFrom, one of them',
    ],
  ];
}

test('secretRefs: a prometheus header from a Secret is read like its credentials', () => {
  const r = resolveChecks({
    soak: '1m',
    checks: [
      {
        name: 'tenant',
        prometheus: {
          address: 'http://prometheus:9090',
          query: 'up',
          headers: [{ name: 'X-Scope-OrgID', valueFrom: { secretKeyRef: { name: 'tenant', key: 'id' } } }],
        },
        successCondition: 'result[0] == 1.0',
      },
    ],
  });
  assert.ok(r.ok && r.checks[0], r.ok ? '' : r.message);
  assert.deepEqual(secretRefs(r.checks[0]), [{ name: 'tenant', key: 'id' }]);
});
