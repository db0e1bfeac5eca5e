// A hostile tenant against convoy as deploy/ installs it (docs/tenancy.md#attacks-and-what-stops-them):
// both processes run as their ServiceAccounts with deploy/'s RBAC in its default tenant mode, the
// controller-manager with the --tenancy its Deployment says. Tenant A has a namespace, a deployer
// ServiceAccount limited to it (Pod Security "baseline" enforced) and a user, alice, allowed Releases,
// HealthRuleSets, Clusters and Secrets only there; alice writes every attack. Each case is one Release
// (with the Cluster or Secret it needs) and the outcome convoy must give it, and then nothing outside
// tenant A may have changed: the objects of tenant B and of the system namespaces, and every
// cluster-scoped object an attack could have made. The victim Release of tenant C shows that objects
// labelled and annotated as its own, in another namespace and in its own, are never deleted and never
// hold it back; the HTTP API is tried with another tenant's token, with none, and with forged
// front-proxy headers.
import assert from 'node:assert/strict';
import { execFile as execFileCb } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { AGGREGATED_GROUP_VERSION, API_VERSION } from '../../src/api/constants.ts';
import { testCrd } from '../../src/api/testsupport.ts';
import type { Condition, KubeObject } from '../../src/api/types.ts';
import { impersonating } from '../../src/controller/cluster/access.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { selfSignedCert } from '../../src/server/index.ts';
import { httpsCall } from '../../src/server/testsupport.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { deployedTenancy, installAs } from '../support/deploy-install.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startControllerManager,
  startObserver,
  tailLogs,
  wakeupsTo,
} from '../support/processes.ts';
import { bindRole, isAllowed, READ_WRITE, serviceAccountToken, waitForAccess } from '../support/rbac.ts';
import { getRelease, releaseRef } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);
const A = 'tenant-a';
const B = 'tenant-b';
const C = 'tenant-c';
const SA = 'deployer';
const API_BASE = `/apis/${AGGREGATED_GROUP_VERSION}/namespaces`;

type Obj = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
};
type Ref = { apiVersion: string; kind: string; name: string; namespace?: string };

const cm = (name: string, namespace?: string, data: Record<string, string> = { k: 'v' }): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data,
});
const ref = (o: Obj): Ref => ({
  apiVersion: String(o.apiVersion),
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
});
const rbac = 'rbac.authorization.k8s.io/v1';
const binding = (
  kind: 'ClusterRoleBinding' | 'RoleBinding',
  name: string,
  role: string,
  ns?: string,
): Obj => ({
  apiVersion: rbac,
  kind,
  metadata: { name, ...(ns === undefined ? {} : { namespace: ns }) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'ServiceAccount', name: SA, namespace: A }],
});
const pod = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations === undefined ? {} : { annotations }) },
  spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...spec },
});
const PRE_SYNC = { 'convoy.kumodo.io/hook': 'PreSync' };
const privileged = { containers: [{ name: 'c', image: 'pause', securityContext: { privileged: true } }] };
const hostPath = {
  containers: [{ name: 'c', image: 'pause', volumeMounts: [{ name: 'root', mountPath: '/host' }] }],
  volumes: [{ name: 'root', hostPath: { path: '/' } }],
};

/** What convoy must answer an attack with: Ready=False with one of these reasons (or Ready=True). */
type Outcome = { readonly refused: readonly string[]; readonly message?: RegExp } | { readonly ready: true };

interface Attack {
  readonly name: string;
  /** The Release's spec beyond its manifests (default: serviceAccountName deployer). */
  readonly spec?: Record<string, unknown>;
  readonly objects?: readonly Obj[];
  /** Objects alice writes into tenant A first (Clusters, Secrets). */
  readonly setup?: readonly Obj[];
  readonly outcome: Outcome;
  /** What the attack tried to make outside tenant A (checked absent), beyond the snapshot. */
  readonly absent?: readonly Ref[];
  /** After the outcome: more to check. */
  readonly check?: () => Promise<void>;
}

/** `${NAME}` as the source holds it. */
const lit = (name: string) => ['$', '{', name, '}'].join('');

const DRY_RUN = { refused: ['DryRunFailed'] } as const;
const FORBIDDEN = { refused: ['DryRunFailed'], message: /forbidden|cannot/i } as const;
const HOOK_REFUSED = { refused: ['HookFailed', 'DryRunFailed', 'ApplyFailed'] } as const;

const kubeconfigSecret = (name: string, text: string, ns = A): Obj => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns },
  stringData: { kubeconfig: text },
});
const clusterOf = (name: string, secret: string): Obj => ({
  apiVersion: API_VERSION,
  kind: 'Cluster',
  metadata: { name, namespace: A },
  spec: { kubeconfigSecretRef: { name: secret } },
});
/** A kubeconfig for `server` with the given user and cluster fields. */
function kubeconfig(
  server: string,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true, ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
}

/** What the attacks need from the running test: known only in before(); the names never depend on it. */
interface Ctx {
  readonly admin: KubeClient;
  readonly server: string;
  readonly dir: string;
  readonly execMarker: string;
  readonly repoUrl: string;
  readonly deployerToken: string;
}

function attacksWith(ctx: Ctx): Attack[] {
  const { admin, dir, execMarker, repoUrl } = ctx;
  const kc = (user: Record<string, unknown>, cluster?: Record<string, unknown>) =>
    kubeconfig(ctx.server, user, cluster);
  return [
    // --- no ServiceAccount: tenant mode refuses before anything is tried
    {
      name: 'no serviceAccountName, a ClusterRoleBinding to cluster-admin',
      spec: {},
      objects: [binding('ClusterRoleBinding', 'tenant-a-is-admin', 'cluster-admin')],
      outcome: { refused: ['ServiceAccountRequired'], message: /--default-service-account/ },
      absent: [{ apiVersion: rbac, kind: 'ClusterRoleBinding', name: 'tenant-a-is-admin' }],
    },
    {
      name: 'no serviceAccountName, a ConfigMap of its own namespace',
      spec: {},
      objects: [cm('no-sa-own')],
      outcome: { refused: ['ServiceAccountRequired'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: A, name: 'no-sa-own' }],
    },
    {
      name: 'no serviceAccountName, a Cluster without kubeconfig (the local cluster)',
      spec: { cluster: { name: 'local-alias' } },
      setup: [
        {
          apiVersion: API_VERSION,
          kind: 'Cluster',
          metadata: { name: 'local-alias', namespace: A },
          spec: {},
        },
      ],
      objects: [cm('no-sa-cluster', B)],
      outcome: { refused: ['ServiceAccountRequired'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'no-sa-cluster' }],
    },
    // --- objects in another namespace
    ...[
      cm('spill', B),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'spill', namespace: B }, stringData: { k: 'v' } },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'spill', namespace: B },
        spec: { ports: [{ port: 80 }] },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'spill', namespace: B },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: {
            metadata: { labels: { app: 'x' } },
            spec: { containers: [{ name: 'c', image: 'pause' }] },
          },
        },
      },
      { apiVersion: rbac, kind: 'Role', metadata: { name: 'spill', namespace: B }, rules: [] },
      binding('RoleBinding', 'spill', 'view', B),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'spill', namespace: B } },
      cm('spill', 'kube-system'),
      cm('spill', 'convoy-system'),
      cm('spill', 'default'),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'spill', namespace: 'convoy-system' },
        stringData: { k: 'v' },
      },
    ].map(
      (o): Attack => ({
        name: `a ${o.kind} in namespace ${o.metadata.namespace}`,
        objects: [cm(`with-${o.kind.toLowerCase()}-${o.metadata.namespace}`), o as Obj],
        outcome: FORBIDDEN,
        absent: [
          ref(o as Obj),
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: A,
            name: `with-${o.kind.toLowerCase()}-${o.metadata.namespace}`,
          },
        ],
      }),
    ),
    {
      name: "overwriting tenant B's existing ConfigMap",
      objects: [cm('sentinel', B, { k: 'overwritten' })],
      outcome: FORBIDDEN,
    },
    ...[B, 'kube-system', 'convoy-system'].map(
      (ns): Attack => ({
        name: `render.targetNamespace ${ns}`,
        spec: { serviceAccountName: SA, render: { targetNamespace: ns } },
        objects: [cm(`target-${ns}`)],
        outcome: FORBIDDEN,
        absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `target-${ns}` }],
      }),
    ),
    // --- cluster scope
    ...[
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'evil' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: B, labels: { owner: 'tenant-a' } } },
      { apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'evil' }, rules: [] },
      binding('ClusterRoleBinding', 'evil-admin', 'cluster-admin'),
      {
        apiVersion: rbac,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'evil-alice' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
      },
      testCrd('example.com', 'Evil', 'evils'),
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'evil' },
        value: 1000000,
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'evil' },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'evil' },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'evil' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/' } },
      },
      { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'evil' }, provisioner: 'x' },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.evil.example.com' },
        spec: {
          group: 'evil.example.com',
          version: 'v1',
          groupPriorityMinimum: 1,
          versionPriority: 1,
          insecureSkipTLSVerify: true,
          service: { name: 'x', namespace: A },
        },
      },
    ].map(
      (o): Attack => ({
        name: `cluster-scoped ${o.kind} ${o.metadata.name}`,
        objects: [o as Obj],
        outcome: FORBIDDEN,
        absent: o.kind === 'Namespace' && o.metadata.name === B ? [] : [ref(o as Obj)],
      }),
    ),
    // --- escalation inside the namespace
    {
      name: 'a Role granting everything in its own namespace',
      objects: [
        {
          apiVersion: rbac,
          kind: 'Role',
          metadata: { name: 'everything' },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
        },
      ],
      outcome: FORBIDDEN,
      absent: [{ apiVersion: rbac, kind: 'Role', namespace: A, name: 'everything' }],
    },
    // (system:aggregate-to-admin holds the rules `admin` aggregates; a control plane without the
    // aggregation controller leaves `admin` itself empty, and binding an empty role escalates nothing)
    ...['cluster-admin', 'system:aggregate-to-admin'].map(
      (role): Attack => ({
        name: `a RoleBinding to ${role} in its own namespace`,
        objects: [binding('RoleBinding', `to-${slug(role)}`, role)],
        outcome: FORBIDDEN,
        absent: [{ apiVersion: rbac, kind: 'RoleBinding', namespace: A, name: `to-${slug(role)}` }],
      }),
    ),
    // --- whose ServiceAccount
    {
      name: "tenant B's deployer by name (it does not exist in tenant A)",
      spec: { serviceAccountName: 'b-deployer' },
      objects: [cm('as-b-deployer', B)],
      outcome: {
        refused: ['DryRunFailed'],
        message: /ServiceAccount tenant-a\/b-deployer .* does not exist/,
      },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'as-b-deployer' }],
    },
    {
      name: "convoy's own ServiceAccount by name",
      spec: { serviceAccountName: 'convoy-controller-manager' },
      objects: [cm('as-convoy', B)],
      outcome: { refused: ['DryRunFailed'], message: /does not exist/ },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'as-convoy' }],
    },
    {
      name: "the namespace's default ServiceAccount (no rights)",
      spec: { serviceAccountName: 'default' },
      objects: [cm('as-default')],
      outcome: FORBIDDEN,
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: A, name: 'as-default' }],
    },
    // --- Clusters and their kubeconfigs
    {
      name: "tenant B's Cluster (holding an admin kubeconfig)",
      spec: { serviceAccountName: SA, cluster: { name: 'b-admin' } },
      objects: [cm('via-b-cluster', B)],
      outcome: { refused: ['ClusterNotFound'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'via-b-cluster' }],
    },
    {
      name: "a Cluster of its own naming tenant B's kubeconfig Secret",
      spec: { serviceAccountName: SA, cluster: { name: 'borrowed' } },
      setup: [clusterOf('borrowed', 'b-admin-kubeconfig')],
      objects: [cm('via-borrowed', B)],
      outcome: { refused: ['ClusterNotReady'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'via-borrowed' }],
    },
    ...(
      [
        [
          'exec',
          {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: 'sh',
              args: ['-c', `touch ${execMarker}`],
            },
          },
        ],
        ['auth-provider', { 'auth-provider': { name: 'oidc', config: {} } }],
        ['tokenFile', { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' }],
        ['token-file', { 'token-file': join(dir, 'convoy-controller-manager.kubeconfig') }],
        [
          'client certificate files',
          {
            'client-certificate': '/etc/kubernetes/pki/admin.crt',
            'client-key': '/etc/kubernetes/pki/admin.key',
          },
        ],
      ] as const
    ).map(
      ([what, user]): Attack => ({
        name: `a kubeconfig with ${what}`,
        spec: { cluster: { name: `kc-${what.replace(/[^a-z]+/g, '-')}` } },
        setup: [
          kubeconfigSecret(`kc-${what.replace(/[^a-z]+/g, '-')}`, kc(user)),
          clusterOf(`kc-${what.replace(/[^a-z]+/g, '-')}`, `kc-${what.replace(/[^a-z]+/g, '-')}`),
        ],
        objects: [cm(`kc-${what.replace(/[^a-z]+/g, '-')}`, B)],
        outcome: { refused: ['ClusterNotReady'], message: /refused|not allowed|reads a local file|runs/i },
        absent: [
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: `kc-${what.replace(/[^a-z]+/g, '-')}` },
        ],
        check: async () => assert.equal(existsSync(execMarker), false, 'the exec plugin never ran'),
      }),
    ),
    {
      name: 'a kubeconfig with a certificate-authority file',
      spec: { cluster: { name: 'kc-ca-file' } },
      setup: [
        kubeconfigSecret(
          'kc-ca-file',
          kc(
            { token: 'x' },
            { 'certificate-authority': '/etc/ssl/certs/ca.crt', 'insecure-skip-tls-verify': false },
          ),
        ),
        clusterOf('kc-ca-file', 'kc-ca-file'),
      ],
      objects: [cm('kc-ca-file', B)],
      outcome: { refused: ['ClusterNotReady'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'kc-ca-file' }],
    },
    {
      name: 'a kubeconfig of this cluster impersonating system:admin without credentials',
      spec: { cluster: { name: 'kc-as-admin' } },
      setup: [
        kubeconfigSecret('kc-as-admin', kc({ as: 'system:admin', 'as-groups': ['system:masters'] })),
        clusterOf('kc-as-admin', 'kc-as-admin'),
      ],
      objects: [cm('kc-as-admin', B)],
      outcome: { refused: ['ClusterNotReady', 'DryRunFailed'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'kc-as-admin' }],
    },
    {
      name: "a kubeconfig with the tenant's own deployer token, writing into tenant B",
      spec: { cluster: { name: 'kc-own-token' } },
      setup: [
        kubeconfigSecret('kc-own-token', kc({ token: ctx.deployerToken })),
        clusterOf('kc-own-token', 'kc-own-token'),
      ],
      objects: [cm('kc-own-token', B)],
      outcome: { refused: ['DryRunFailed', 'ClusterNotReady'] },
      absent: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'kc-own-token' }],
    },
    // --- Secrets of sources
    {
      name: "a git source with tenant B's credentials Secret",
      spec: {
        serviceAccountName: SA,
        source: { git: { url: repoUrl, ref: { branch: 'main' }, secretRef: { name: 'b-git-credentials' } } },
      },
      outcome: { refused: ['SourceFailed'], message: /b-git-credentials/ },
    },
    // --- hooks and Pods under Pod Security
    {
      name: 'a privileged PreSync hook Pod',
      objects: [cm('after-privileged-hook'), pod('privileged-hook', privileged, PRE_SYNC)],
      outcome: HOOK_REFUSED,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'privileged-hook' }],
    },
    {
      name: 'a hostPath PreSync hook Pod',
      objects: [cm('after-hostpath-hook'), pod('hostpath-hook', hostPath, PRE_SYNC)],
      outcome: HOOK_REFUSED,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'hostpath-hook' }],
    },
    {
      name: 'a hostNetwork/hostPID PreSync hook Pod',
      objects: [
        cm('after-hostnet-hook'),
        pod('hostnet-hook', { hostNetwork: true, hostPID: true }, PRE_SYNC),
      ],
      outcome: HOOK_REFUSED,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'hostnet-hook' }],
    },
    {
      name: 'a PreSync hook Pod in tenant B',
      objects: [
        cm('after-b-hook'),
        { ...pod('b-hook', {}, PRE_SYNC), metadata: { name: 'b-hook', namespace: B, annotations: PRE_SYNC } },
      ],
      outcome: HOOK_REFUSED,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: B, name: 'b-hook' }],
    },
    {
      name: "a PreSync hook Pod running as tenant B's deployer",
      objects: [cm('after-sa-hook'), pod('sa-hook', { serviceAccountName: 'b-deployer' }, PRE_SYNC)],
      outcome: HOOK_REFUSED,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'sa-hook' }],
    },
    {
      name: 'a privileged Pod as a plain object',
      objects: [pod('privileged-pod', privileged)],
      outcome: DRY_RUN,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'privileged-pod' }],
    },
    {
      name: 'a hostPath Pod as a plain object',
      objects: [pod('hostpath-pod', hostPath)],
      outcome: DRY_RUN,
      absent: [{ apiVersion: 'v1', kind: 'Pod', namespace: A, name: 'hostpath-pod' }],
    },
    // --- substitution of the controller's environment
    {
      name: "substitution of the controller's environment variables",
      spec: { serviceAccountName: SA, render: { substitute: { GREETING: 'hi' } } },
      objects: [
        cm('substituted', undefined, {
          greeting: lit('GREETING'),
          home: lit('HOME'),
          path: lit('PATH'),
          kubeconfig: lit('KUBECONFIG'),
          host: lit('KUBERNETES_SERVICE_HOST'),
          identity: lit('CONVOY_IDENTITY'),
        }),
      ],
      outcome: { ready: true },
      check: async () => {
        const live = await admin.get<{ data: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: A,
          name: 'substituted',
        });
        assert.deepEqual(live?.data, {
          greeting: 'hi',
          home: lit('HOME'),
          path: lit('PATH'),
          kubeconfig: lit('KUBECONFIG'),
          host: lit('KUBERNETES_SERVICE_HOST'),
          identity: lit('CONVOY_IDENTITY'),
        });
      },
    },
    // --- what the tenant may do still works (so the refusals above mean something)
    {
      name: 'a render that stays in its namespace, as its deployer',
      objects: [
        cm('contained'),
        {
          apiVersion: rbac,
          kind: 'Role',
          metadata: { name: 'contained' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
        },
      ],
      outcome: { ready: true },
      check: async () => {
        assert.ok(await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: A, name: 'contained' }));
      },
    },
  ];
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 50)
    .replace(/-$/, '');

const NAMES = attacksWith({
  admin: undefined as unknown as KubeClient,
  server: 'https://placeholder',
  dir: '/placeholder',
  execMarker: '/placeholder',
  repoUrl: 'file:///placeholder',
  deployerToken: '',
}).map((a) => a.name);

describe('tenancy: a hostile tenant against the default install', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let alice: KubeClient;
  let bob: KubeClient;
  let dir: string;
  let manager: ManagerProcess;
  let observer: ObserverProcess;
  let baseline: string[];
  let aliceToken: string;
  let bobToken: string;
  let execMarker: string;
  let repoUrl: string;
  let victimUid: string;
  let ctx: Ctx;
  const logs = () => tailLogs(manager, observer);

  /** Everything outside tenant A (and the victim's tenant C) an attack could have touched. */
  const outside = async (): Promise<string[]> => {
    const out: string[] = [];
    const namespaced = [
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['v1', 'ServiceAccount'],
      ['v1', 'Service'],
      ['v1', 'Pod'],
      ['apps/v1', 'Deployment'],
      [rbac, 'Role'],
      [rbac, 'RoleBinding'],
    ] as const;
    for (const ns of [B, 'kube-system', 'convoy-system', 'default'])
      for (const [apiVersion, kind] of namespaced)
        for (const o of await admin.list<KubeObject>({ apiVersion, kind, namespace: ns }))
          out.push(`${kind} ${ns}/${o.metadata.name}${ns === B ? `@${o.metadata.resourceVersion}` : ''}`);
    const cluster = [
      ['v1', 'Namespace'],
      [rbac, 'ClusterRole'],
      [rbac, 'ClusterRoleBinding'],
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
      ['scheduling.k8s.io/v1', 'PriorityClass'],
      ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
      ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
      ['v1', 'PersistentVolume'],
      ['storage.k8s.io/v1', 'StorageClass'],
      ['apiregistration.k8s.io/v1', 'APIService'],
    ] as const;
    for (const [apiVersion, kind] of cluster)
      for (const o of await admin.list<KubeObject>({ apiVersion, kind }))
        out.push(
          `${kind} ${o.metadata.name}${kind === 'Namespace' ? JSON.stringify(o.metadata.labels ?? {}) : ''}`,
        );
    return out.sort();
  };

  const manifestsOf = (objects: readonly Obj[]) => objects.map((o) => stringify(o)).join('---\n');
  before(async () => {
    cp = await startControlPlane({ workloads: true, nodes: 1 });
    admin = new KubeClient(cp.kubeConfig);
    alice = new KubeClient(impersonating(cp.kubeConfig, 'alice'));
    bob = new KubeClient(impersonating(cp.kubeConfig, 'bob'));
    dir = await mkdtemp(join(tmpdir(), 'convoy-tenancy-attacks-'));
    execMarker = join(dir, 'exec-ran');
    await installCrds(cp.kubeConfig);
    const kubeconfigs = await installAs(admin, cp, dir, 'controller-manager/rbac-tenant.yaml');

    // Three tenants: a namespace each (Pod Security baseline), a deployer, a user.
    const users: Record<string, string> = { [A]: 'alice', [B]: 'bob', [C]: 'carol' };
    for (const ns of [A, B, C]) {
      await admin.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } },
      });
      const deployer = ns === A ? SA : ns === B ? 'b-deployer' : 'c-deployer';
      await admin.create({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: deployer, namespace: ns },
      });
      await bindRole(
        admin,
        ns,
        'deployer',
        [
          { apiGroups: [''], resources: ['configmaps', 'secrets', 'services', 'pods'], verbs: READ_WRITE },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: READ_WRITE },
          { apiGroups: ['batch'], resources: ['jobs'], verbs: READ_WRITE },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['roles', 'rolebindings'],
            verbs: READ_WRITE,
          },
        ],
        [{ kind: 'ServiceAccount', name: deployer, namespace: ns }],
      );
      await bindRole(
        admin,
        ns,
        'tenant-user',
        [
          {
            apiGroups: ['convoy.kumodo.io'],
            resources: ['releases', 'healthrulesets', 'clusters'],
            verbs: READ_WRITE,
          },
          { apiGroups: [''], resources: ['secrets'], verbs: READ_WRITE },
          {
            apiGroups: ['api.convoy.kumodo.io'],
            resources: ['releases/sync', 'releases/health', 'releases/history', 'releases/renders'],
            verbs: ['get', 'create'],
          },
        ],
        [{ kind: 'User', name: users[ns] ?? '' }],
      );
    }
    for (const [user, ns] of [
      ['alice', A],
      ['bob', B],
    ] as const)
      await waitForAccess(admin, `RBAC knows ${user}`, {
        user,
        resourceAttributes: {
          verb: 'create',
          group: 'convoy.kumodo.io',
          resource: 'releases',
          namespace: ns,
        },
      });
    await waitForAccess(admin, 'RBAC knows the deployer', {
      user: `system:serviceaccount:${A}:${SA}`,
      resourceAttributes: { verb: 'create', group: '', resource: 'configmaps', namespace: A },
    });

    // Tenant B's own things the attacks aim at.
    await admin.create(cm('sentinel', B) as never);
    const adminKubeconfig = await readFile(cp.kubeconfigPath, 'utf8');
    await admin.create(kubeconfigSecret('b-admin-kubeconfig', adminKubeconfig, B) as never);
    await admin.create({
      apiVersion: API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'b-admin', namespace: B },
      spec: { kubeconfigSecretRef: { name: 'b-admin-kubeconfig' } },
    } as never);
    await admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'b-git-credentials', namespace: B },
      stringData: { username: 'b', password: 'secret' },
    } as never);
    const token = (ns: string, sa: string) => serviceAccountToken(admin, ns, sa);
    // Users' tokens for the HTTP API: ServiceAccounts standing for alice and bob, bound like them.
    for (const [ns, sa] of [
      [A, 'alice-token'],
      [B, 'bob-token'],
    ] as const) {
      await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns } });
      await admin.create({
        apiVersion: rbac,
        kind: 'RoleBinding',
        metadata: { name: sa, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-user' },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
      } as never);
    }
    aliceToken = await token(A, 'alice-token');
    bobToken = await token(B, 'bob-token');
    const deployerToken = await token(A, SA);

    // A git repository for the source attack.
    const repo = join(dir, 'repo');
    await mkdir(repo);
    await writeFile(join(repo, 'cm.yaml'), stringify(cm('from-git')));
    const git = (...args: string[]) => execFile('git', ['-C', repo, ...args], { timeout: 30_000 });
    await git('init', '-q', '-b', 'main');
    await git('add', '.');
    await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
    repoUrl = `file://${repo}`;

    manager = await startControllerManager({
      tenancy: await deployedTenancy(),
      kubeconfigPath: kubeconfigs['convoy-controller-manager'],
      identity: 'controller-attacks',
      gitCacheDir: join(dir, 'git-cache'),
    });
    observer = await startObserver({
      kubeconfigPath: kubeconfigs['convoy-observer'],
      identity: 'observer-attacks',
      wakeups: wakeupsTo(manager),
    });

    // The victim: tenant C's Release, and objects labelled and annotated as its own elsewhere.
    await admin.create(victimRelease('victim-cm') as never);
    const victim = await waitFor(
      'the victim has a uid',
      async () => (await getRelease(admin, C, 'victim'))?.metadata.uid,
    );
    victimUid = victim;

    baseline = await outside();
    const server = cp.kubeConfig.getCurrentCluster()?.server;
    assert.ok(server);
    ctx = { admin, server, dir, execMarker, repoUrl, deployerToken };
    for (const a of attacksWith(ctx)) {
      const name = slug(a.name);
      for (const o of a.setup ?? [])
        await applyObject(alice, o as never, { fieldManager: 'alice', force: true });
      await alice.create({
        apiVersion: API_VERSION,
        kind: 'Release',
        metadata: { name, namespace: A },
        spec: {
          source: { inline: { manifests: manifestsOf(a.objects ?? [cm(`${name}-cm`)]) } },
          ...(a.spec ?? { serviceAccountName: SA }),
        },
      } as never);
    }
  });

  after(async () => {
    await manager?.stop();
    await observer?.stop();
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Tenant C's Release `victim`, applying the one ConfigMap `cmName` as C's deployer. */
  const victimRelease = (cmName: string) => ({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'victim', namespace: C },
    spec: { serviceAccountName: 'c-deployer', source: { inline: { manifests: manifestsOf([cm(cmName)]) } } },
  });
  /** The victim's own ConfigMap `name` is gone (`what`), and the decoy Secrets of A and C are still there. */
  const assertGoneKeepingDecoys = async (name: string, what: string) => {
    assert.equal(
      await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: C, name }),
      undefined,
      what,
    );
    for (const ns of [A, C])
      assert.ok(
        await admin.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'decoy' }),
        `the decoy in ${ns} stays`,
      );
  };
  const readyOf = async (ns: string, name: string, ok: (c: Condition) => boolean, what: string) => {
    try {
      return await waitFor(
        `${ns}/${name}: ${what}`,
        async () => {
          const r = await getRelease(admin, ns, name);
          const c = r?.status?.conditions?.find((x) => x.type === 'Ready');
          return c !== undefined && c.observedGeneration === r?.metadata.generation && ok(c) ? c : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      );
    } catch (err) {
      const r = await getRelease(admin, ns, name);
      throw new Error(
        `${errorMessage(err)}\nconditions: ${JSON.stringify(r?.status?.conditions)}\n${logs()}`,
      );
    }
  };

  const table = (): Attack[] => attacksWith(ctx);

  it(`at least 48 attacks (the issue's list), each a Release`, () => {
    assert.ok(NAMES.length >= 48, `${NAMES.length} attacks`);
    assert.equal(new Set(NAMES.map(slug)).size, NAMES.length, 'each has a Release name of its own');
  });

  for (const [i, name] of NAMES.entries()) {
    it(name, async () => {
      const a = table()[i];
      assert.ok(a);
      const rname = slug(a.name);
      const outcome = a.outcome;
      if ('ready' in outcome) {
        await readyOf(A, rname, (c) => c.status === 'True', 'Ready=True');
      } else {
        const c = await readyOf(
          A,
          rname,
          (x) => x.status === 'False' && outcome.refused.includes(x.reason),
          `Ready=False ${outcome.refused.join('|')}`,
        );
        if (outcome.message !== undefined) assert.match(c.message, outcome.message);
      }
      for (const r of a.absent ?? [])
        assert.equal(await admin.get(r), undefined, `${r.kind} ${r.namespace ?? ''}/${r.name} exists`);
      await a.check?.();
      assert.deepEqual(await outside(), baseline, 'nothing changed outside tenant A');
    });
  }

  it('the victim Release is Ready: objects labelled as its own elsewhere never held it back', async () => {
    // Labelled and annotated with the victim's uid by hands other than convoy's: in alice's namespace
    // (another namespace, from the victim's side) and by carol in the victim's own namespace.
    const decoy = (ns: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'decoy',
        namespace: ns,
        labels: { 'convoy.kumodo.io/release': `${C}.victim` },
        annotations: { 'convoy.kumodo.io/release-uid': victimUid },
      },
      stringData: { k: 'v' },
    });
    await alice.create(decoy(A) as never);
    const carol = new KubeClient(impersonating(cp.kubeConfig, 'carol'));
    await carol.create(decoy(C) as never);
    await readyOf(C, 'victim', (c) => c.status === 'True', 'Ready=True');
    // A new render (the decoys are not in it, nor in the inventory): synced, decoys untouched.
    const r = await getRelease(admin, C, 'victim');
    assert.ok(r);
    await applyObject(admin, victimRelease('victim-cm-2') as never, {
      fieldManager: 'convoy-test',
      force: true,
    });
    await readyOf(C, 'victim', (c) => c.status === 'True', 'Ready=True on the new render');
    await assertGoneKeepingDecoys('victim-cm', 'its own object was pruned');
  });

  it('deleting the victim finishes and leaves the decoys', async () => {
    await admin.delete(releaseRef(C, 'victim'));
    await waitFor('victim gone', async () => (await getRelease(admin, C, 'victim')) === undefined, {
      timeoutMs: 120_000,
      intervalMs: 500,
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${logs()}`);
    });
    await assertGoneKeepingDecoys('victim-cm-2', 'its own object went');
  });

  describe('the HTTP API', () => {
    const call = (method: string, path: string, opts: Parameters<typeof httpsCall>[4] = {}) => {
      assert.ok(manager.api);
      return httpsCall(manager.api.url, manager.api.caPem, method, path, opts);
    };
    const contained = () =>
      `${API_BASE}/${A}/releases/${slug('a render that stays in its namespace, as its deployer')}`;
    const bobs = `${API_BASE}/${B}/releases/anything`;

    /** The subresource path; renders/<renderRef> of what the Release applied. */
    const path = async (sub: string) => {
      if (sub !== 'renders') return `${contained()}/${sub}`;
      const r = await getRelease(admin, A, slug('a render that stays in its namespace, as its deployer'));
      const renderRef = r?.status?.lastSuccessful?.renderRef;
      assert.ok(renderRef, 'the contained Release applied a render');
      return `${contained()}/renders/${encodeURIComponent(renderRef)}`;
    };

    it("alice's token works on her own Release (so the refusals below mean something)", async () => {
      for (const sub of ['health', 'history', 'renders']) {
        const r = await call('GET', await path(sub), { token: aliceToken });
        assert.equal(r.status, 200, `${sub}: ${JSON.stringify(r.body)}`);
      }
    });
    for (const [method, sub] of [
      ['POST', 'sync'],
      ['GET', 'health'],
      ['GET', 'history'],
      ['GET', 'renders'],
    ] as const) {
      it(`${method} ${sub} of tenant A's Release with tenant B's token: 403`, async () => {
        const r = await call(method, await path(sub), {
          token: bobToken,
          ...(method === 'POST' ? { body: {} } : {}),
        });
        assert.equal(r.status, 403, JSON.stringify(r.body));
      });
    }
    it("POST sync in tenant B with alice's token: 403", async () => {
      const r = await call('POST', `${bobs}/sync`, { token: aliceToken, body: {} });
      assert.equal(r.status, 403);
    });
    it('no token: 401', async () => {
      const r = await call('POST', `${contained()}/sync`, { body: {} });
      assert.equal(r.status, 401);
    });
    it('forged front-proxy headers without a client certificate: 401', async () => {
      const r = await call('POST', `${contained()}/sync`, {
        body: {},
        headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters' },
      });
      assert.equal(r.status, 401);
    });
    it("forged front-proxy headers beside bob's token: bob is who is checked (403)", async () => {
      const r = await call('POST', `${contained()}/sync`, {
        token: bobToken,
        body: {},
        headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' },
      });
      assert.equal(r.status, 403);
    });
    it('forged front-proxy headers with a client certificate of another CA: 401', async () => {
      const cert = await selfSignedCert(['front-proxy-client']);
      const r = await call('POST', `${contained()}/sync`, {
        body: {},
        clientCert: cert,
        headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters' },
      });
      assert.equal(r.status, 401);
    });
  });

  it('alice still may not do everything, and nothing outside tenant A changed', async () => {
    const everything = { verb: '*', group: '*', resource: '*' };
    assert.equal(await isAllowed(admin, { user: 'alice', resourceAttributes: everything }), false);
    const deployer = await isAllowed(admin, {
      user: `system:serviceaccount:${A}:${SA}`,
      resourceAttributes: { verb: 'create', group: '', resource: 'configmaps', namespace: B },
    });
    assert.equal(deployer, false);
    assert.equal(bob === undefined, false);
    assert.deepEqual(await outside(), baseline);
  });
});
