// A ReleaseSet whose train cannot go on says why and goes on once the cause is fixed (docs/fleets.md):
// one target cluster (an extra kube-apiserver) as two members, c1 in wave 1 and c2 in wave 2, each its
// own target namespace. A selector matching no Cluster is Ready=False NoClusters (not "0/0 clusters",
// Progressing forever); c1 without its kubeconfig Secret holds the train at wave 1 (ClusterNotReady,
// naming the member, the cluster and the Secret; wave 2 is not started) until the Secret exists; a
// revision whose objects c2's cluster refuses (its namespace label names a namespace that does not exist
// there) holds the train at wave 2 (MemberStalled, naming web-c2, c2 and the Release's reason) until the
// namespace exists (DryRunFailed on c2 only). `convoy fleet status` prints each hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Condition, ReleaseSet } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { addTargetNamespace, type FleetMemberSpec, fleetFixture, trainEnded } from '../support/fleet.ts';
import { mergePatch } from '../support/release.ts';
import { convoySystemPerFile } from '../support/system.ts';

const NS = 'fleet-holds';
const sys = convoySystemPerFile({ identity: 'fleet-holds', nodes: 1, extraClusters: 1 });
const SPEC: Record<string, FleetMemberSpec> = {
  c1: { extra: 0, targetNs: 'hold-a', wave: 1, bad: 'none' },
  c2: { extra: 0, targetNs: 'hold-b', wave: 2, bad: 'none' },
};
const fleet = fleetFixture(sys, NS, SPEC, () => sys.logs());
const cli = (...args: string[]) => runConvoy([...args, '-n', NS, '--kubeconfig', sys.cp.kubeconfigPath]);
const ready = (s: ReleaseSet): Condition | undefined => s.status?.conditions?.find((c) => c.type === 'Ready');
const row = (s: ReleaseSet, c: string) => s.status?.clusters?.find((m) => m.cluster === c);
const held = (reason: string) => (s: ReleaseSet) =>
  s.status?.observedGeneration === s.metadata.generation &&
  s.status?.train?.revision === s.status?.revision &&
  ready(s)?.status === 'False' &&
  ready(s)?.reason === reason;

describe('ReleaseSet holds: no clusters, a cluster not ready, a member stalled', () => {
  it('a selector that matches no Cluster is Ready=False NoClusters', async () => {
    await sys.namespace(NS);
    await fleet.applyRule();
    await fleet.applySet('v1');
    const set = await fleet.waitSet('NoClusters', held('NoClusters'));
    assert.equal(
      ready(set)?.message,
      `spec.clusterSelector {"matchLabels":{"fleet":"web"}} matches no Cluster in namespace ${NS}: no cluster to roll revision ${set.status?.revision} out to`,
    );
    const status = await cli('fleet', 'status', 'web');
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^held: NoClusters: spec\.clusterSelector .* matches no Cluster/m);
  });

  it('a Cluster whose kubeconfig Secret is missing holds the train at its wave, until the Secret exists', async () => {
    await fleet.addCluster('c1', false);
    await fleet.addCluster('c2');
    // The cause is the Cluster's own Ready=False (the controller-manager's cluster prober), or, before
    // its first probe is written, what c1's Release reports: both name the Secret.
    // The probe of c1 can hold the train before the controller has seen c2 at all: wait for both rows.
    const set = await fleet.waitSet(
      'held at wave 1 by c1, both members listed',
      (s) => held('ClusterNotReady')(s) && row(s, 'c1') !== undefined && row(s, 'c2') !== undefined,
    );
    assert.match(
      ready(set)?.message ?? '',
      /^revision \w+ holds at wave 1: member web-c1 \(cluster c1\): (Cluster c1 is not ready: SecretNotFound: |its Release cannot go on: ClusterNotReady: .*)kubeconfig Secret fleet-holds\/c1-kubeconfig not found/,
    );
    assert.equal(row(set, 'c1')?.state, 'Stalled');
    assert.equal(row(set, 'c2')?.state, 'Waiting');
    assert.equal(await fleet.release('c2'), undefined, 'wave 2 is not started');
    const status = await cli('fleet', 'status', 'web');
    assert.match(status.stdout, /^held: ClusterNotReady: .*member web-c1 \(cluster c1\).*c1-kubeconfig/m);
    assert.match(
      status.stdout,
      /^c1 +1 +\S+ +Stalled +\S+ +member web-c1 \(cluster c1\): (Cluster c1 is not ready|its Release cannot go on)/m,
    );

    await fleet.addSecret('c1');
    await fleet.waitSet('v1 on both members once the Secret exists', trainEnded('Succeeded'));
    assert.equal(await fleet.live('c1'), 'v1');
    assert.equal(await fleet.live('c2'), 'v1');
  });

  it('a member whose Release cannot go on holds the train at its wave, until the cause is fixed', async (t) => {
    // c2's objects now go to a namespace its cluster does not have: only c2 fails.
    await mergePatch(
      sys.client,
      { apiVersion: API_VERSION, kind: 'Cluster', namespace: NS, name: 'c2' },
      { metadata: { labels: { ns: 'hold-missing' } } },
    );
    await fleet.applySet('v2');
    const set = await fleet.waitSet('held at wave 2 by c2', held('MemberStalled'));
    const message = ready(set)?.message ?? '';
    t.diagnostic(message);
    assert.match(
      message,
      /^revision \w+ holds at wave 2: member web-c2 \(cluster c2\): its Release cannot go on: DryRunFailed: .*namespaces "hold-missing" not found/,
    );
    assert.match(message, /hold-missing/);
    assert.equal(row(set, 'c1')?.state, 'Succeeded');
    assert.equal(row(set, 'c2')?.state, 'Stalled');
    assert.equal(set.status?.train?.state, 'Progressing', 'held, not stopped: it resumes');
    const status = await cli('fleet', 'status', 'web');
    assert.match(status.stdout, /^held: MemberStalled: .*member web-c2 \(cluster c2\)/m);

    await addTargetNamespace(fleet.member('c2'), 'hold-missing');
    await fleet.waitSet('v2 on both members once the namespace exists', trainEnded('Succeeded'));
    assert.equal(await fleet.live('c1'), 'v2');
  });
});
