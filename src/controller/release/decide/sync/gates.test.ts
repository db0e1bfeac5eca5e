import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ClusterWaveInput,
  clusterWaveGate,
  type GateInput,
  gateDecision,
  sourceIdentity,
  type WavePeer,
} from './gates.ts';

const R = `sha256:${'c'.repeat(64)}`;
const OLD = `sha256:${'d'.repeat(64)}`;
const open = { kind: 'open' } as const;
const base: GateInput = {
  mode: 'Auto',
  renderRef: R,
  approvedRender: undefined,
  forcedSyncPending: false,
  appliedRender: undefined,
  clusterWave: open,
};

const decisions: {
  name: string;
  input: Partial<GateInput>;
  want: 'open' | 'WaitingForApproval' | 'WaitingForClusterWave';
}[] = [
  { name: 'Auto: open', input: {}, want: 'open' },
  { name: 'mode unset means Auto', input: { mode: undefined }, want: 'open' },
  { name: 'Manual, nothing approved: held', input: { mode: 'Manual' }, want: 'WaitingForApproval' },
  {
    name: 'Manual, an older render approved: held',
    input: { mode: 'Manual', approvedRender: OLD },
    want: 'WaitingForApproval',
  },
  { name: 'Manual, this render approved: open', input: { mode: 'Manual', approvedRender: R }, want: 'open' },
  {
    name: 'Manual, forced sync pending: open',
    input: { mode: 'Manual', forcedSyncPending: true },
    want: 'open',
  },
  {
    name: 'Manual, this render already applied: open',
    input: { mode: 'Manual', appliedRender: R },
    want: 'open',
  },
  {
    name: 'Manual, another render applied: held',
    input: { mode: 'Manual', appliedRender: OLD },
    want: 'WaitingForApproval',
  },
  {
    name: 'cluster wave held in Auto',
    input: { clusterWave: { kind: 'held', message: 'm' } },
    want: 'WaitingForClusterWave',
  },
  {
    name: 'a forced sync does not open the cluster wave gate',
    input: { mode: 'Manual', forcedSyncPending: true, clusterWave: { kind: 'held', message: 'm' } },
    want: 'WaitingForClusterWave',
  },
  {
    name: 'approval is asked first when both gates hold',
    input: { mode: 'Manual', clusterWave: { kind: 'held', message: 'm' } },
    want: 'WaitingForApproval',
  },
];
for (const c of decisions) {
  test(`gateDecision: ${c.name}`, () => {
    const got = gateDecision({ ...base, ...c.input });
    assert.equal(got.kind === 'open' ? 'open' : got.reason, c.want);
  });
}

test('gateDecision: held messages say why', () => {
  const manual = gateDecision({ ...base, mode: 'Manual' });
  assert.equal(manual.kind, 'held');
  assert.match(manual.kind === 'held' ? manual.message : '', /approval/);
  const wave = gateDecision({ ...base, clusterWave: { kind: 'held', message: 'wave 0 first' } });
  assert.deepEqual(wave, { kind: 'held', reason: 'WaitingForClusterWave', message: 'wave 0 first' });
});

function peer(
  release: string,
  clusterWave: number,
  rev: string | undefined,
  rollout?: WavePeer['rollout'],
): WavePeer {
  return { release, cluster: `c-${release}`, clusterWave, lastSuccessfulRevision: rev, rollout };
}

const waves: { name: string; input: ClusterWaveInput; held: RegExp | undefined }[] = [
  {
    name: 'no wave on this cluster: open',
    input: { wave: undefined, revision: 'v2', peers: [peer('a', 0, 'v1')] },
    held: undefined,
  },
  {
    name: 'lowest wave: open',
    input: { wave: 0, revision: 'v2', peers: [peer('b', 1, 'v1'), peer('c', 0, 'v1')] },
    held: undefined,
  },
  { name: 'no peers: open', input: { wave: 3, revision: 'v2', peers: [] }, held: undefined },
  {
    name: 'every lower peer finished the revision: open',
    input: {
      wave: 2,
      revision: 'v2',
      peers: [peer('a', 0, 'v2'), peer('b', 1, 'v2', { state: 'Succeeded', revision: 'v2' })],
    },
    held: undefined,
  },
  {
    name: 'a lower peer on an older revision: held',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 0, 'v1')] },
    held: /a \(cluster c-a, wave 0\) has applied v1/,
  },
  {
    name: 'a lower peer that applied nothing: held',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 0, undefined)] },
    held: /has applied nothing yet/,
  },
  {
    name: 'applied but its rollout for the revision still Progressing: held',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 0, 'v2', { state: 'Progressing', revision: 'v2' })] },
    held: /is Progressing for it/,
  },
  {
    name: 'a Failed lower peer stops the train',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 0, 'v2', { state: 'Failed', revision: 'v2' })] },
    held: /is Failed for it/,
  },
  {
    name: 'a peer on the same wave does not hold',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 1, 'v1'), peer('b', 0, 'v2')] },
    held: undefined,
  },
  {
    name: 'a peer whose rollout is for another revision counts by lastSuccessful',
    input: { wave: 1, revision: 'v2', peers: [peer('a', 0, 'v2', { state: 'Progressing', revision: 'v3' })] },
    held: undefined,
  },
  {
    name: 'long lists are cut, lowest wave first',
    input: {
      wave: 9,
      revision: 'v2',
      peers: [
        peer('e', 4, 'v1'),
        peer('d', 3, 'v1'),
        peer('c', 2, 'v1'),
        peer('b', 1, 'v1'),
        peer('a', 1, 'v1'),
      ],
    },
    held: /^revision v2 waits for lower cluster waves: a .*; b .*; c .*; and 2 more$/,
  },
];
for (const c of waves) {
  test(`clusterWaveGate: ${c.name}`, () => {
    const got = clusterWaveGate(c.input);
    if (c.held === undefined) assert.deepEqual(got, { kind: 'open' });
    else {
      assert.equal(got.kind, 'held');
      assert.match(got.kind === 'held' ? got.message : '', c.held);
    }
  });
}

test('sourceIdentity: same repo and path are one train whatever the ref; inline by content', () => {
  const a = sourceIdentity({ git: { url: 'https://g/r', path: './apps/web/' } });
  assert.equal(a, sourceIdentity({ git: { url: 'https://g/r', path: 'apps/web' } }));
  assert.notEqual(a, sourceIdentity({ git: { url: 'https://g/r', path: 'apps/api' } }));
  assert.notEqual(a, sourceIdentity({ oci: { url: 'https://g/r' } }));
  assert.equal(
    sourceIdentity({ inline: { manifests: 'x' } }),
    sourceIdentity({ inline: { manifests: 'x' } }),
  );
  assert.notEqual(
    sourceIdentity({ inline: { manifests: 'x' } }),
    sourceIdentity({ inline: { manifests: 'y' } }),
  );
});
