// The control plane's command lines carry the loopback pitfalls from the notes; these
// tables pin them so a flag lost in a refactor shows up here rather than as a hung start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiServerArgs,
  CONTROLLERS,
  controllerManagerArgs,
  etcdArgs,
  FRONT_PROXY_CLIENT_NAME,
  kwokArgs,
  schedulerArgs,
} from './flags.ts';

const flagMap = (args: readonly string[]) =>
  new Map(
    args.map((a) => {
      const eq = a.indexOf('=');
      return eq < 0 ? [a, ''] : [a.slice(0, eq), a.slice(eq + 1)];
    }),
  );

/** One test per row: `args` sets `flag` to `want` ('' for a flag without a value). */
function itSets(args: readonly string[], rows: readonly (readonly [flag: string, want: string])[]): void {
  const f = flagMap(args);
  for (const [flag, want] of rows) it(`sets ${flag}`, () => assert.equal(f.get(flag), want));
}

const LAYOUT = {
  etcdEndpoint: 'http://127.0.0.1:1111',
  etcdPrefix: '/second/registry',
  port: 3333,
  certDir: '/d/certs',
  tokenFile: '/d/tokens.csv',
  serviceAccountKeyFile: '/d/sa.key',
};

describe('etcdArgs', () => {
  itSets(etcdArgs({ dataDir: '/d/etcd', clientPort: 1111, peerPort: 2222 }), [
    ['--data-dir', '/d/etcd'],
    ['--listen-client-urls', 'http://127.0.0.1:1111'],
    ['--advertise-client-urls', 'http://127.0.0.1:1111'],
    ['--listen-peer-urls', 'http://127.0.0.1:2222'],
    ['--initial-advertise-peer-urls', 'http://127.0.0.1:2222'],
    ['--initial-cluster', 'default=http://127.0.0.1:2222'],
    ['--unsafe-no-fsync', ''],
  ]);
});

describe('apiServerArgs', () => {
  const args = apiServerArgs(LAYOUT);
  const f = flagMap(args);
  itSets(args, [
    ['--etcd-servers', 'http://127.0.0.1:1111'],
    ['--etcd-prefix', '/second/registry'],
    ['--secure-port', '3333'],
    ['--bind-address', '127.0.0.1'],
    ['--advertise-address', '127.0.0.1'],
    ['--endpoint-reconciler-type', 'none'],
    ['--cert-dir', '/d/certs'],
    ['--token-auth-file', '/d/tokens.csv'],
    ['--authorization-mode', 'RBAC'],
    ['--service-account-key-file', '/d/sa.key'],
    ['--service-account-signing-key-file', '/d/sa.key'],
    ['--allow-privileged', 'true'],
  ]);
  it('sets a service account issuer and a service CIDR', () => {
    assert.ok(f.get('--service-account-issuer'));
    assert.ok(f.get('--service-cluster-ip-range'));
  });
  it('leaves the serving cert to --cert-dir (no --tls-cert-file)', () => {
    assert.equal(f.has('--tls-cert-file'), false);
  });
});

describe('apiServerArgs with a front proxy (aggregation)', () => {
  const layout = { ...LAYOUT, etcdPrefix: '/registry' };
  const plain = apiServerArgs(layout);
  const withProxy = apiServerArgs({
    ...layout,
    frontProxy: {
      caFile: '/d/fp/ca.crt',
      clientCertFile: '/d/fp/client.crt',
      clientKeyFile: '/d/fp/client.key',
    },
  });
  const f = flagMap(withProxy);
  itSets(withProxy, [
    ['--requestheader-client-ca-file', '/d/fp/ca.crt'],
    ['--requestheader-allowed-names', FRONT_PROXY_CLIENT_NAME],
    ['--requestheader-username-headers', 'X-Remote-User'],
    ['--requestheader-group-headers', 'X-Remote-Group'],
    ['--requestheader-extra-headers-prefix', 'X-Remote-Extra-'],
    ['--proxy-client-cert-file', '/d/fp/client.crt'],
    ['--proxy-client-key-file', '/d/fp/client.key'],
  ]);
  it('adds only those flags, and routes through Services, not endpoints', () => {
    assert.deepEqual(withProxy.slice(0, plain.length), plain);
    assert.equal(withProxy.length, plain.length + 7);
    assert.equal(f.has('--enable-aggregator-routing'), false);
  });
  it('without a front proxy: no requestheader or proxy-client flags', () => {
    assert.deepEqual(
      plain.filter((a) => a.startsWith('--requestheader-') || a.startsWith('--proxy-client-')),
      [],
    );
  });
});

describe('controller-manager, scheduler and kwok args', () => {
  const kcmArgs = controllerManagerArgs({ kubeconfig: '/d/k' });
  const kcm = flagMap(kcmArgs);
  const kwok = kwokArgs({
    kubeconfig: '/d/k',
    stagesFile: '/d/stages.yaml',
    kubelet: { port: 10250, certFile: '/d/c.crt', keyFile: '/d/c.key' },
  });

  for (const [name, args] of [
    ['kube-controller-manager', kcmArgs],
    ['kube-scheduler', schedulerArgs({ kubeconfig: '/d/k' })],
  ] as const) {
    describe(`${name}: no leader election, no serving port, loopback, our kubeconfig`, () =>
      itSets(args, [
        ['--kubeconfig', '/d/k'],
        ['--leader-elect', 'false'],
        ['--secure-port', '0'],
        ['--bind-address', '127.0.0.1'],
      ]));
  }

  it('kube-controller-manager runs exactly the listed controllers, node-lifecycle among them', () => {
    assert.deepEqual(kcm.get('--controllers')?.split(','), [...CONTROLLERS]);
    for (const c of [
      'node-lifecycle-controller',
      'serviceaccount-controller',
      'deployment-controller',
      'replicaset-controller',
      'job-controller',
      'garbage-collector-controller',
      'namespace-controller',
      'ttl-after-finished-controller',
      'pod-garbage-collector-controller',
      'persistentvolume-binder-controller',
      'persistentvolumeclaim-protection-controller',
    ]) {
      assert.ok(CONTROLLERS.includes(c as (typeof CONTROLLERS)[number]), c);
    }
    assert.equal(kcm.get('--use-service-account-credentials'), 'false');
    assert.equal(kcm.get('--enable-hostpath-provisioner'), 'true', 'claims of the default class bind');
  });

  describe('kwok manages all nodes with our stages and a /16 pod CIDR', () =>
    itSets(kwok, [
      ['--kubeconfig', '/d/k'],
      ['--config', '/d/stages.yaml'],
      ['--manage-all-nodes', 'true'],
      ['--node-lease-duration-seconds', '40'],
      ['--cidr', '10.0.0.0/16'],
    ]));

  describe('kwok serves the kubelet API (Pod logs) over TLS on loopback, at the port its nodes advertise', () =>
    itSets(kwok, [
      ['--server-address', '127.0.0.1:10250'],
      ['--node-ip', '127.0.0.1'],
      ['--node-port', '10250'],
      ['--tls-cert-file', '/d/c.crt'],
      ['--tls-private-key-file', '/d/c.key'],
    ]));
});
