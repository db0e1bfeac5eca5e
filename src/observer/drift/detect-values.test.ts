// detectDrift by tables: quantities (normalized only in built-in APIs), Secrets (bytes; stringData as
// data), and the drift messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectDrift } from './detect.ts';
import { driftMessage, shortDrift } from './message.ts';
import { cm, deployment, liveDeployment, type O, paths } from './testsupport.ts';

test('detectDrift: quantities are normalized only in built-in APIs', () => {
  const quota = (hard: object): O => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q' },
    spec: { hard },
  });
  assert.deepEqual(
    paths(
      detectDrift(
        quota({ cpu: '0.5', 'requests.memory': '1024Mi' }),
        quota({ cpu: '500m', 'requests.memory': '1Gi' }),
      ),
    ),
    [],
  );
  assert.deepEqual(paths(detectDrift(quota({ cpu: '1' }), quota({ cpu: '2' }))), ['spec.hard.cpu']);
  const cr = (limits: object): O => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { limits },
  });
  assert.deepEqual(paths(detectDrift(cr({ cpu: '1000m' }), cr({ cpu: '1' }))), ['spec.limits.cpu']);
  const pvc = (storage: unknown): O => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: { resources: { requests: { storage } } },
  });
  assert.deepEqual(paths(detectDrift(pvc('1024Mi'), pvc('1Gi'))), []);
  const hpa = (averageValue: unknown): O => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'h' },
    spec: {
      metrics: [
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue } } },
      ],
    },
  });
  assert.deepEqual(paths(detectDrift(hpa('1000m'), hpa('1'))), []);
});

test('detectDrift: Secrets compare bytes; stringData is compared as data', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = (body: object): O => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's' },
    ...body,
  });
  const live = secret({ data: { user: b64('admin'), password: b64('hunter2') }, type: 'Opaque' });
  assert.deepEqual(
    paths(detectDrift(secret({ stringData: { user: 'admin', password: 'hunter2' } }), live)),
    [],
  );
  assert.deepEqual(paths(detectDrift(secret({ data: { user: 'YWRtaW4' } }), live)), [], 'unpadded base64');
  const changed = detectDrift(secret({ stringData: { password: 'correct horse' } }), live);
  assert.deepEqual(paths(changed), ['data.password']);
  assert.ok(changed.kind === 'drifted');
  const msg = driftMessage('Secret', changed);
  assert.equal(msg, 'data.password differs');
  assert.ok(!msg.includes(b64('hunter2')) && !msg.includes(b64('correct horse')), msg);
  assert.equal(shortDrift('Secret', changed), 'data.password differs');
  const gone = detectDrift(secret({ stringData: { token: 'abc' } }), live);
  assert.ok(gone.kind === 'drifted');
  assert.equal(driftMessage('Secret', gone), 'data.token missing');
});

test('drift messages name the paths with desired → live values, the first few only', () => {
  const r = detectDrift(deployment(), liveDeployment({ replicas: 5, image: 'nginx:1.28' }));
  assert.ok(r.kind === 'drifted');
  assert.equal(
    driftMessage('Deployment', r),
    'spec.replicas: 3 → 5; spec.template.spec.containers[web].image: "nginx:1.27" → "nginx:1.28"',
  );
  assert.equal(shortDrift('Deployment', r), 'spec.replicas: 3 → 5, +1 more');
  const many = detectDrift(cm({ a: '1', b: '2', c: '3', d: '4', e: '5' }), cm({}));
  assert.ok(many.kind === 'drifted');
  assert.equal(
    driftMessage('ConfigMap', many),
    'data.a: "1" → (missing); data.b: "2" → (missing); data.c: "3" → (missing); +2 more',
  );
  assert.equal(driftMessage('ConfigMap', { kind: 'deleted' }), 'deleted');
  const long = detectDrift(cm({ a: 'x'.repeat(200) }), cm({ a: 'y' }));
  assert.ok(long.kind === 'drifted');
  assert.ok(driftMessage('ConfigMap', long).length < 120, 'long values are cut');
});
