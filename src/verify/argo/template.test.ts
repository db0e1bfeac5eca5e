import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { checkArgNames, readAnalysisTemplate, TRANSLATED } from './template.ts';

/** The templates of a testdata file (copied unchanged from the Argo Rollouts docs). */
const templates = (file: string): unknown[] =>
  parseAllDocuments(readFileSync(new URL(`testdata/${file}`, import.meta.url), 'utf8'))
    .map((d) => d.toJS() as unknown)
    .filter((d) => d !== null);

const query = `sum(irate(
  istio_requests_total{reporter="source",destination_service=~"{{args.service-name}}",response_code!~"5.*"}[5m]
)) /
sum(irate(
  istio_requests_total{reporter="source",destination_service=~"{{args.service-name}}"}[5m]
))
`;

test('templates from the Argo Rollouts docs read as convoy checks', () => {
  const cases: [string, number, unknown][] = [
    [
      'background-success-rate.yaml',
      0,
      {
        ok: true,
        template: 'AnalysisTemplate success-rate',
        args: [{ name: 'service-name' }],
        checks: [
          {
            name: 'success-rate',
            prometheus: { address: 'http://prometheus.example.com:9090', query },
            successCondition: '(result[0] >= 0.95)',
            failureLimit: 3,
            interval: '5m',
          },
        ],
      },
    ],
    [
      'prometheus-success-rate.yaml',
      0,
      {
        ok: true,
        template: 'AnalysisTemplate success-rate',
        args: [{ name: 'service-name' }],
        checks: [
          {
            name: 'success-rate',
            prometheus: {
              address: 'http://prometheus.example.com:9090',
              query,
              timeout: '40s',
              headers: [{ name: 'X-Scope-OrgID', value: 'tenant_a' }],
            },
            successCondition: '(result[0] >= 0.95)',
            failureLimit: 3,
            interval: '5m',
          },
        ],
      },
    ],
    [
      'cluster-success-rate.yaml',
      0,
      {
        ok: true,
        template: 'ClusterAnalysisTemplate success-rate',
        args: [{ name: 'service-name' }, { name: 'prometheus-port', value: '9090' }],
        checks: [
          {
            name: 'success-rate',
            prometheus: { address: 'http://prometheus.example.com:{{args.prometheus-port}}', query },
            successCondition: '(result[0] >= 0.95)',
          },
        ],
      },
    ],
    [
      'args-example.yaml',
      0,
      {
        ok: true,
        template: 'AnalysisTemplate args-example',
        args: [
          { name: 'service-name' },
          { name: 'stable-hash' },
          { name: 'latest-hash' },
          { name: 'api-url', value: 'http://example/measure' },
          { name: 'api-token', valueFrom: { secretKeyRef: { name: 'token-secret', key: 'apiToken' } } },
        ],
        checks: [
          {
            name: 'webmetric',
            web: {
              url: '{{ args.api-url }}?service={{ args.service-name }}',
              method: 'GET',
              headers: [{ name: 'Authorization', value: 'Bearer {{ args.api-token }}' }],
              jsonPath: '{$.results.ok}',
            },
            successCondition: '(result == "true")',
          },
        ],
      },
    ],
    [
      'examples-analysis-templates.yaml',
      1,
      {
        ok: true,
        template: 'AnalysisTemplate random-fail',
        args: [],
        checks: [
          {
            name: 'random-fail',
            job: {
              spec: {
                template: {
                  spec: {
                    containers: [
                      {
                        name: 'sleep',
                        image: 'alpine:3.8',
                        command: ['sh', '-c'],
                        args: ['FLIP=$(($(($RANDOM%10))%2)) && exit $FLIP'],
                      },
                    ],
                    restartPolicy: 'Never',
                  },
                },
                backoffLimit: 0,
              },
            },
            failureLimit: 1,
            count: 2,
            interval: '5s',
          },
        ],
      },
    ],
  ];
  for (const [file, i, want] of cases) {
    assert.deepEqual(readAnalysisTemplate(templates(file)[i]), want, file);
  }
  const pass = readAnalysisTemplate(templates('examples-analysis-templates.yaml')[0]);
  assert.ok(pass.ok && pass.checks[0]?.job !== undefined && pass.checks[0].count === 1);
  const args = readAnalysisTemplate(templates('args-example.yaml')[0]);
  assert.deepEqual(args.ok && args.checks[0] ? checkArgNames(args.checks[0]) : [], [
    'api-url',
    'service-name',
    'api-token',
  ]);
});

test('what is outside the translated subset is refused, naming template, metric and field', () => {
  const cases: [string, string][] = [
    [
      'datadog-error-rate.yaml',
      'AnalysisTemplate loq-error-rate, metric error-rate: provider datadog is not supported (convoy reads prometheus, web and job)',
    ],
    [
      'prometheus-range-query.yaml',
      'AnalysisTemplate range-query-example, metric success-rate: provider.prometheus.rangeQuery is not translated',
    ],
  ];
  for (const [file, want] of cases) {
    assert.deepEqual(readAnalysisTemplate(templates(file)[0]), { ok: false, message: want }, file);
  }
});

const metricTemplate = (metric: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 't' },
  spec: {
    ...spec,
    metrics: [{ name: 'm', provider: { prometheus: { address: 'http://p:9090', query: 'up' } }, ...metric }],
  },
});

test('metric fields and conditions: what is read and what is refused', () => {
  const refused: [Record<string, unknown>, Record<string, unknown>, string][] = [
    [
      { successCondition: 'result[0] in [1, 2]' },
      {},
      `successCondition "result[0] in [1, 2]": operator in is not translated ${TRANSLATED}`,
    ],
    [
      { successCondition: "result matches 'a'" },
      {},
      `successCondition "result matches 'a'": operator matches is not translated ${TRANSLATED}`,
    ],
    [
      { failureCondition: 'sum(result) > 1' },
      {},
      `failureCondition "sum(result) > 1": function sum() is not translated ${TRANSLATED}`,
    ],
    [
      { successCondition: 'result[0] > threshold' },
      {},
      `successCondition "result[0] > threshold": unknown name threshold (only result is defined) ${TRANSLATED}`,
    ],
    [
      { successCondition: 'result[0] ?? 1' },
      {},
      `successCondition "result[0] ?? 1": operator ?? is not translated ${TRANSLATED}`,
    ],
    [
      { successCondition: 'result[-1] > 1' },
      {},
      `successCondition "result[-1] > 1": negative indexes are not translated ${TRANSLATED}`,
    ],
    [{ successCondition: 'result[0] > 1', initialDelay: '1m' }, {}, 'initialDelay is not translated'],
    [
      { successCondition: 'result[0] > 1', consecutiveErrorLimit: 2 },
      {},
      'consecutiveErrorLimit is not translated',
    ],
    [
      { successCondition: 'result[0] > 1', count: '{{args.n}}' },
      {},
      'count "{{args.n}}": want an integer from 1 to 10000',
    ],
    [
      { successCondition: 'result[0] > 1', interval: 'soon' },
      {},
      'interval: invalid duration "soon": want numbers with units ns, us, ms, s, m, h, e.g. "1h30m"',
    ],
    [{}, {}, 'a prometheus or web metric needs successCondition or failureCondition'],
    [
      { name: 'Error_Rate', successCondition: 'true' },
      {},
      'name: a check name is lowercase letters, digits and -, at most 63 characters',
    ],
  ];
  for (const [metric, spec, want] of refused) {
    const name = typeof metric.name === 'string' ? metric.name : 'm';
    assert.deepEqual(
      readAnalysisTemplate(metricTemplate(metric, spec)),
      { ok: false, message: `AnalysisTemplate t, metric ${name}: ${want}` },
      want,
    );
  }
  const read: [Record<string, unknown>, Record<string, unknown>][] = [
    [
      { successCondition: 'len(result) == 0 || result[0] >= 0.95', failureLimit: '2', inconclusiveLimit: 1 },
      {
        successCondition: '((size(result) == 0) || (result[0] >= 0.95))',
        failureLimit: 2,
        inconclusiveLimit: 1,
      },
    ],
    [
      {
        successCondition: 'all(result, # < 1000)',
        failureCondition: 'isNaN(result[0]) or not isInf(result[0])',
      },
      {
        successCondition: 'result.all(x0, (x0 < 1000))',
        failureCondition: '(isNaN(result[0]) || !(isInf(result[0])))',
      },
    ],
    [
      { failureCondition: 'default(result, 0) > 7 / 2' },
      { failureCondition: '((result == null ? 0 : result) > (double(7) / double(2)))' },
    ],
  ];
  for (const [metric, want] of read) {
    const r = readAnalysisTemplate(metricTemplate(metric));
    assert.deepEqual(r.ok ? r.checks[0] : r.message, {
      name: 'm',
      prometheus: { address: 'http://p:9090', query: 'up' },
      ...want,
    });
  }
  assert.deepEqual(readAnalysisTemplate(metricTemplate({ successCondition: 'true' }, { dryRun: [] })), {
    ok: false,
    message: 'AnalysisTemplate t: spec.dryRun is not translated',
  });
  assert.deepEqual(readAnalysisTemplate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), {
    ok: false,
    message:
      'ConfigMap x: want apiVersion argoproj.io/v1alpha1, kind AnalysisTemplate or ClusterAnalysisTemplate',
  });
});

test('web metrics: jsonBody, methods, timeouts', () => {
  const webTemplate = (w: Record<string, unknown>) =>
    metricTemplate({ successCondition: 'result == true', provider: { web: { url: 'http://w/x', ...w } } });
  const r = readAnalysisTemplate(
    webTemplate({
      method: 'POST',
      jsonBody: { key1: 'value_1', key3: '{{ args.service-name }}' },
      timeoutSeconds: 20,
    }),
  );
  assert.deepEqual(r.ok ? r.checks[0]?.web : r.message, {
    url: 'http://w/x',
    method: 'POST',
    headers: [{ name: 'Content-Type', value: 'application/json' }],
    body: '{"key1":"value_1","key3":"{{ args.service-name }}"}',
    timeout: '20s',
  });
  const refused: [Record<string, unknown>, string][] = [
    [{ body: 'x' }, 'provider.web: a GET request takes no body'],
    [{ method: 'DELETE' }, 'provider.web.method "DELETE": want GET, POST or PUT'],
    [{ insecure: true }, 'provider.web.insecure is not translated'],
    [{ timeoutSeconds: 120 }, 'provider.web.timeoutSeconds 120: want whole seconds from 1 to 60'],
  ];
  for (const [w, want] of refused) {
    assert.deepEqual(readAnalysisTemplate(webTemplate(w)), {
      ok: false,
      message: `AnalysisTemplate t, metric m: ${want}`,
    });
  }
});

test('prometheus headers are sent as they are: a bearer token from a Secret-valued arg stays an arg', () => {
  const t = metricTemplate(
    {
      successCondition: 'result[0] > 0',
      provider: {
        prometheus: {
          address: 'http://p:9090',
          query: 'up',
          headers: [
            { key: 'Authorization', value: 'Bearer {{ args.token }}' },
            { key: 'X-Scope-OrgID', value: 'tenant_a' },
          ],
        },
      },
    },
    { args: [{ name: 'token', valueFrom: { secretKeyRef: { name: 'prom', key: 'token' } } }] },
  );
  const r = readAnalysisTemplate(t);
  assert.deepEqual(r.ok ? r.checks[0]?.prometheus : r.message, {
    address: 'http://p:9090',
    query: 'up',
    headers: [
      { name: 'Authorization', value: 'Bearer {{ args.token }}' },
      { name: 'X-Scope-OrgID', value: 'tenant_a' },
    ],
  });
  assert.deepEqual(r.ok && r.checks[0] ? checkArgNames(r.checks[0]) : [], ['token']);
  const many = metricTemplate({
    successCondition: 'result[0] > 0',
    provider: {
      prometheus: {
        address: 'http://p:9090',
        query: 'up',
        headers: Array.from({ length: 33 }, (_, i) => ({ key: `X-${i}`, value: 'v' })),
      },
    },
  });
  assert.deepEqual(readAnalysisTemplate(many), {
    ok: false,
    message: 'AnalysisTemplate t, metric m: provider.prometheus.headers: 33 headers; at most 32',
  });
});
