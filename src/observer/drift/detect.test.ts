// detectDrift by tables: only the fields convoy sets count, in the forms the server stores; Services,
// int-or-string ports and lists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectDrift } from './detect.ts';
import { cm, deployment, LABEL, liveDeployment, type O, paths } from './testsupport.ts';

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
