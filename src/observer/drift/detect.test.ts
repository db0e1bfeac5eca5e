import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DriftResult, detectDrift } from './detect.ts';
import { driftMessage, shortDrift } from './message.ts';

type O = Record<string, unknown> & { apiVersion: string; kind: string };

const LABEL = { 'convoy.kumodo.io/release': 'prod.web' };

const deployment = (over: { replicas?: unknown; containers?: unknown[]; extraSpec?: object } = {}): O => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: LABEL },
  spec: {
    replicas: over.replicas ?? 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: over.containers ?? [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'MODE', value: 'prod' }],
            resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: 0.5 } },
          },
        ],
        ...over.extraSpec,
      },
    },
  },
});

/** What the API server returns for deployment(): canonical quantities, defaults, server metadata, status. */
const liveDeployment = (
  over: { replicas?: number; image?: string; env?: unknown[]; sidecarFirst?: boolean } = {},
): O => {
  const web = {
    name: 'web',
    image: over.image ?? 'nginx:1.27',
    ports: [{ containerPort: 80, protocol: 'TCP' }],
    env: over.env ?? [{ name: 'MODE', value: 'prod' }],
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
    terminationMessagePath: '/dev/termination-log',
    imagePullPolicy: 'IfNotPresent',
  };
  const sidecar = { name: 'proxy', image: 'envoy:1', resources: {} };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'prod',
      labels: LABEL,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      uid: 'u',
      resourceVersion: '42',
      generation: 2,
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields: [],
    },
    spec: {
      replicas: over.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels: { app: 'web' }, creationTimestamp: null },
        spec: {
          containers: over.sidecarFirst ? [sidecar, web] : [web],
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
        },
      },
    },
    status: { replicas: 3, availableReplicas: 3 },
  };
};

const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): O => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'prod', labels: LABEL, ...extra },
  data,
});

const paths = (r: DriftResult) =>
  r.kind === 'drifted' ? r.differences.map((d) => d.path) : r.kind === 'deleted' ? ['(deleted)'] : [];

test('detectDrift: only the fields convoy sets count, compared in the forms the server stores', () => {
  const cases: [string, O, O | undefined, string[]][] = [
    ['identical ConfigMap', cm({ a: '1' }), cm({ a: '1' }), []],
    ['deleted', cm({ a: '1' }), undefined, ['(deleted)']],
    ['ConfigMap value edited', cm({ color: 'blue' }), cm({ color: 'red' }), ['data.color']],
    ['ConfigMap key removed', cm({ a: '1', b: '2' }), cm({ a: '1' }), ['data.b']],
    ['ConfigMap key added by someone: not drift', cm({ a: '1' }), cm({ a: '1', extra: 'x' }), []],
    [
      'an annotation added by someone: not drift',
      cm({ a: '1' }),
      cm({ a: '1' }, { annotations: { 'team.example.com/owner': 'ops' } }),
      [],
    ],
    [
      'the release label removed',
      cm({ a: '1' }),
      { ...cm({ a: '1' }), metadata: { name: 'settings', namespace: 'prod' } },
      ['metadata.labels["convoy.kumodo.io/release"]'],
    ],
    [
      'quantity-like strings in ConfigMap data are not quantities',
      cm({ cpu: '1000m' }),
      cm({ cpu: '1' }),
      ['data.cpu'],
    ],
    [
      'Deployment with defaults, canonical quantities, server metadata and status',
      deployment(),
      liveDeployment(),
      [],
    ],
    ['Deployment scaled', deployment(), liveDeployment({ replicas: 5 }), ['spec.replicas']],
    [
      'image changed',
      deployment(),
      liveDeployment({ image: 'nginx:1.28' }),
      ['spec.template.spec.containers[web].image'],
    ],
    [
      'a sidecar injected before it: matched by name, not drift',
      deployment(),
      liveDeployment({ sidecarFirst: true }),
      [],
    ],
    [
      'env var removed',
      deployment(),
      liveDeployment({ env: [] }),
      ['spec.template.spec.containers[web].env[MODE]'],
    ],
    [
      'env var changed',
      deployment(),
      liveDeployment({ env: [{ name: 'MODE', value: 'dev' }] }),
      ['spec.template.spec.containers[web].env[MODE].value'],
    ],
    [
      'a different cpu limit',
      deployment({
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'MODE', value: 'prod' }],
            resources: { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '500m' } },
          },
        ],
      }),
      liveDeployment(),
      ['spec.template.spec.containers[web].resources.limits.cpu'],
    ],
    [
      'empty maps and lists, and zero values the server omits, equal absent',
      deployment({ extraSpec: { volumes: [], nodeSelector: {}, hostNetwork: false, priorityClassName: '' } }),
      liveDeployment(),
      [],
    ],
    ['null sets nothing', deployment({ extraSpec: { affinity: null } }), liveDeployment(), []],
    [
      'server metadata and status in the desired object are ignored',
      {
        ...cm({ a: '1' }),
        metadata: { name: 'settings', namespace: 'prod', labels: LABEL, resourceVersion: '1', uid: 'x' },
        status: { x: 1 },
      },
      cm({ a: '1' }),
      [],
    ],
  ];
  for (const [name, desired, live, want] of cases) {
    assert.deepEqual(paths(detectDrift(desired, live)), want, name);
  }
});

test('detectDrift: Services, int-or-string ports, lists', () => {
  const svc = (ports: unknown[], extra: object = {}): O => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'prod' },
    spec: { selector: { app: 'web' }, ports, ...extra },
  });
  const liveSvc = (ports: unknown[]): O => ({
    ...svc(ports),
    spec: {
      selector: { app: 'web' },
      ports,
      clusterIP: '10.0.0.7',
      type: 'ClusterIP',
      sessionAffinity: 'None',
    },
  });
  const cases: [string, O, O, string[]][] = [
    [
      'targetPort as a number vs the same number as a string',
      svc([{ port: 80, targetPort: 8080 }]),
      liveSvc([{ port: 80, targetPort: '8080', protocol: 'TCP' }]),
      [],
    ],
    [
      'a second port matched by port/protocol',
      svc([{ port: 53, protocol: 'UDP' }]),
      liveSvc([
        { port: 80, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ]),
      [],
    ],
    [
      'targetPort changed',
      svc([{ port: 80, targetPort: 8080 }]),
      liveSvc([{ port: 80, targetPort: 9090, protocol: 'TCP' }]),
      ['spec.ports[80/TCP].targetPort'],
    ],
  ];
  for (const [name, desired, live, want] of cases)
    assert.deepEqual(paths(detectDrift(desired, live)), want, name);

  const pod = (spec: object): O => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });
  const tol = { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' };
  const added = {
    key: 'node.kubernetes.io/not-ready',
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: 300,
  };
  const c = (args: string[]) => [{ name: 'c', image: 'x', args }];
  const lists: [string, O, O, string[]][] = [
    [
      'keyless items found among more (admission added some)',
      pod({ tolerations: [tol] }),
      pod({ tolerations: [added, tol] }),
      [],
    ],
    [
      'a keyless item changed',
      pod({ tolerations: [tol] }),
      pod({ tolerations: [{ ...tol, value: 'db' }] }),
      ['spec.tolerations[0].value'],
    ],
    [
      'scalar lists: order is the value',
      pod({ containers: c(['a', 'b']) }),
      pod({ containers: c(['b', 'a']) }),
      ['spec.containers[c].args'],
    ],
    [
      'scalar lists: an item added',
      pod({ containers: c(['a']) }),
      pod({ containers: c(['a', 'b']) }),
      ['spec.containers[c].args'],
    ],
    [
      'a list where a map was',
      pod({ nodeSelector: { a: 'b' } }),
      pod({ nodeSelector: ['a'] }),
      ['spec.nodeSelector'],
    ],
  ];
  for (const [name, desired, live, want] of lists)
    assert.deepEqual(paths(detectDrift(desired, live)), want, name);
});

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
