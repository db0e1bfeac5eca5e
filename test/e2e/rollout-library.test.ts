// A custom resource's failure rolls the render back, judged by the shipped rule library: a
// cert-manager Certificate (its CRD a minimal one written here, no cert-manager running: the test
// writes the status cert-manager would) that becomes Ready in R1 and never in R2. The Release
// selects the default rules and the library; the inventory entry names the deciding rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { installRuleLibrary } from '../../src/observer/health/loop/index.ts';
import { getInventory } from '../support/release.ts';
import { gitRelease, inRolloutScenario, reached } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const certificateCrd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'certificates.cert-manager.io' },
  spec: {
    group: 'cert-manager.io',
    scope: 'Namespaced',
    names: {
      kind: 'Certificate',
      plural: 'certificates',
      singular: 'certificate',
      listKind: 'CertificateList',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

const env = convoySystemPerFile({
  identity: 'rollout-library',
  setUp: async (sys) => {
    await applyObject(sys.client, certificateCrd, { fieldManager: 'convoy-test', force: true });
    await waitFor(
      'Certificate in discovery',
      () => sys.client.resourceFor('cert-manager.io/v1', 'Certificate'),
      {
        timeoutMs: 60_000,
      },
    );
    await installRuleLibrary(sys.client);
  },
});

const certificate = (dnsName: string) => `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls}
spec:
  secretName: web-tls
  dnsNames: [${dnsName}]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
`;

type LiveCert = KubeObject & { metadata: { generation?: number }; spec?: { dnsNames?: string[] } };

test('a Certificate that never becomes Ready rolls the render back; the entry names rule cert-manager.io/ready', () =>
  inRolloutScenario(env, 'ro-library', 'library', async ({ ns, repo, waitForRollout }) => {
    const { client } = env;
    const cert = async () =>
      client.get<LiveCert>({
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        namespace: ns,
        name: 'web-tls',
      });
    // What cert-manager would write: Ready for the generation it looked at.
    const writeReady = async (status: 'True' | 'False', reason: string, message: string) => {
      const live = await cert();
      assert.ok(live);
      await applyObject(
        client,
        {
          apiVersion: 'cert-manager.io/v1',
          kind: 'Certificate',
          metadata: { name: 'web-tls', namespace: ns },
          status: {
            conditions: [
              { type: 'Ready', status, reason, message, observedGeneration: live.metadata.generation },
            ],
          },
        } as KubeObject,
        { fieldManager: 'cert-manager-test', subresource: 'status', force: true },
      );
    };
    const entry = async () =>
      (await getInventory(client, ns, 'app'))?.entries?.find((e) => e.name === 'web-tls');

    const sha1 = await repo.commit({ 'app/cert.yaml': certificate('web.example.com') });
    await client.create(
      gitRelease(ns, 'app', repo, {
        healthAssessment: {
          deadline: '3s',
          globalRuleSetSelector: {
            matchExpressions: [
              { key: 'convoy.kumodo.io/rules', operator: 'In', values: ['default', 'library'] },
            ],
          },
        },
        failurePolicy: { deadline: '10s', rollback: 'OnFailure' },
      }),
    );
    await waitFor('R1 applied the Certificate', async () => (await cert()) !== undefined);
    const notYet = await waitFor('the library rule judges the Certificate without status', async () => {
      const e = await entry();
      return e?.state === 'Progressing' ? e : false;
    });
    assert.equal(notYet.rule, 'cert-manager.io/ready');
    assert.equal(notYet.message, 'no status yet (rule cert-manager.io/ready)');
    await writeReady('True', 'Ready', 'Certificate is up to date and has not expired');
    await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1));
    const healthy = await entry();
    assert.equal(healthy?.state, 'Healthy');
    assert.equal(healthy?.message, 'healthy (rule cert-manager.io/ready)');

    const sha2 = await repo.commit({ 'app/cert.yaml': certificate('www.example.com') });
    await waitFor(
      'R2 applied the Certificate',
      async () => (await cert())?.spec?.dnsNames?.[0] === 'www.example.com',
    );
    await writeReady('False', 'DoesNotExist', 'Issuer letsencrypt not found');
    // The entry may first read "stale" (R2's generation not yet observed); wait for the verdict on
    // the Ready=False just written.
    const failing = await waitFor('the entry fails on Ready=False', async () => {
      const e = await entry();
      return (e?.state === 'Progressing' || e?.state === 'Degraded') && /DoesNotExist/.test(e.message ?? '')
        ? e
        : false;
    });
    assert.equal(failing.rule, 'cert-manager.io/ready');
    assert.match(
      failing.message ?? '',
      /^Ready is False \(DoesNotExist\): Issuer letsencrypt not found \(rule cert-manager\.io\/ready\)$/,
    );

    const rb = await waitForRollout(
      'RolledBack(R2)',
      (r) => r.state === 'RolledBack' && r.revision === sha2,
      90_000,
    );
    assert.equal(rb.status?.rollout?.reason, 'DeadlineExceeded');
    await waitFor('R1 is live again', async () => (await cert())?.spec?.dnsNames?.[0] === 'web.example.com');
  }));
