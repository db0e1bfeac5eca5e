import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { newApiMetrics, routeLabel } from './metrics.ts';
import { route } from './routes.ts';

const REL = '/apis/api.convoy.kumodo.io/v1alpha1/namespaces/ns/releases/web';

test('routeLabel names each route, discovery as one label, and every unknown path as unmatched', () => {
  const cases: [string, string, string][] = [
    ['POST', `${REL}/sync`, 'sync'],
    ['GET', `${REL}/health`, 'health'],
    ['GET', `${REL}/history`, 'history'],
    ['GET', `${REL}/renders/sha256:${'a'.repeat(64)}`, 'renders'],
    ['GET', '/apis', 'discovery'],
    ['GET', '/apis/api.convoy.kumodo.io', 'discovery'],
    ['GET', '/apis/api.convoy.kumodo.io/v1alpha1', 'discovery'],
    ['GET', '/healthz', 'healthz'],
    ['GET', '/nope', 'unmatched'],
    ['GET', `${REL}/sync`, 'unmatched'], // 405: the method names no route
    ['GET', `${REL}/renders/bad`, 'unmatched'],
  ];
  for (const [method, path, want] of cases)
    assert.equal(routeLabel(route(method, path)), want, `${method} ${path}`);
});

test('the counter is exported on the registry it was given', async () => {
  const registry = new Registry();
  const m = newApiMetrics(registry);
  m.requests.inc({ route: 'sync', code: '200' });
  assert.match(await registry.metrics(), /convoy_api_requests_total\{route="sync",code="200"\} 1/);
});

test('the reload counter is exported by source and result', async () => {
  const registry = new Registry();
  const m = newApiMetrics(registry);
  m.reloads.inc({ source: 'serving', result: 'refused' });
  assert.match(
    await registry.metrics(),
    /convoy_api_certificate_reloads_total\{source="serving",result="refused"\} 1/,
  );
});
