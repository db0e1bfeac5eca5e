// A fleet revision that fails verification (docs/design.md#verification) on the real control plane with
// two target clusters in waves 1–2: the ReleaseSet's template carries a web check whose answer turns bad
// once wave 2's cluster runs v2 (every object there stays Healthy). Wave 1 is a canary wave with its own
// check (strategy.waves) and bake: its check first has no data, which holds the train at wave 1 for a
// person, naming the wave, the member, the cluster and the check; once it answers, wave 1 passes and
// bakes, then wave 2 starts. On v2 wave 1 passes its soak; wave 2's check fails, its Release is rolled back
// by the metric (VerificationFailed), and the existing fleet-wide rollback takes wave 1 back to v1 too.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, it } from 'node:test';
import type { Release } from '../../src/api/types.ts';
import { memberReleaseName } from '../../src/controller/releaseset/executor.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { type FleetMemberSpec, fleetFixture, SET, trainEnded } from '../support/fleet.ts';
import { events } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'vfleet';
const sys = convoySystemPerFile({ identity: 'verification-fleet', nodes: 1, extraClusters: 2 });
const SPEC: Record<string, FleetMemberSpec> = {
  c1: { extra: 0, targetNs: 'web-a', wave: 1, bad: 'none' },
  c2: { extra: 1, targetNs: 'web-a', wave: 2, bad: 'none' },
};
const fleet = fleetFixture(sys, NS, SPEC, () => sys.logs());

/** Whether the canary check's answer has data yet (without, each measurement is inconclusive). */
let canaryAnswers = false;
/** The error rate the check reads: 0.3 while c2 runs v2, else 0 (an unreadable c2 answers 500). */
const server = createServer((req, res) => {
  if (req.url === '/canary') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: canaryAnswers ? { errorRate: 0 } : {} }));
    return;
  }
  fleet.live('c2').then(
    (version) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { errorRate: version === 'v2' ? 0.3 : 0 } })),
    (err: unknown) =>
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: errorMessage(err) })),
  );
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The template's check `error-rate` (/errors), or wave 1's own `canary-errors` (/canary). */
async function verification(
  check = 'error-rate',
  path = '/errors',
): Promise<NonNullable<Release['spec']['verification']>> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  const port = typeof a === 'object' && a !== null ? a.port : 0;
  return {
    soak: '4s',
    interval: '1s',
    checks: [
      {
        name: check,
        web: { url: `http://127.0.0.1:${port}${path}`, jsonPath: '{$.data.errorRate}', timeout: '3s' },
        successCondition: 'result <= 0.05',
        failureCondition: 'result > 0.05',
      },
    ],
  };
}

/** Wave 1 is a canary: its own check and a 3 s bake before wave 2. */
const BAKE_MS = 3000;
const strategy = async () => ({
  waves: [
    { wave: 1, soak: `${BAKE_MS / 1000}s`, verification: await verification('canary-errors', '/canary') },
  ],
});
const checkNames = async (c: string) =>
  (await fleet.release(c))?.spec.verification?.checks?.map((x) => x.name);

describe('a ReleaseSet whose wave 2 fails verification', () => {
  it("v1: wave 1's own check holds the train while inconclusive, then passes, bakes, and wave 2 follows", async () => {
    await sys.namespace(NS);
    await fleet.applyRule();
    for (const c of ['c1', 'c2']) await fleet.addCluster(c);
    await fleet.applySet('v1', await strategy(), { verification: await verification() });
    const held = await fleet.waitSet('v1 held at wave 1 for a person', (s) => {
      const ready = s.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'False' && ready.reason === 'VerificationInconclusive';
    });
    const ready = held.status?.conditions?.find((c) => c.type === 'Ready');
    assert.match(
      ready?.message ?? '',
      /^revision \w+ holds at wave 1: member web-c1 \(cluster c1\): .*verification inconclusive, waiting for a person \(convoy approve or convoy rollback\): canary-errors: /,
    );
    assert.equal(held.status?.clusters?.find((m) => m.cluster === 'c1')?.state, 'Stalled');
    assert.equal(await fleet.release('c2'), undefined, 'wave 2 was given nothing while wave 1 holds');
    assert.deepEqual(
      await checkNames('c1'),
      ['canary-errors'],
      "wave 1 runs its own check, not the template's",
    );

    canaryAnswers = true; // a conclusive measurement resumes the soak
    const set = await fleet.waitSet('v1 on every cluster', trainEnded('Succeeded'));
    assert.deepEqual(await checkNames('c2'), ['error-rate'], "wave 2 runs the template's check");
    for (const c of ['c1', 'c2']) {
      assert.equal(await fleet.live(c), 'v1', c);
      const v = (await fleet.release(c))?.status?.conditions?.find((x) => x.type === 'Verified');
      assert.equal(v?.status, 'True', `${c}: ${JSON.stringify(v)}`);
    }
    const row = (c: string) => set.status?.clusters?.find((m) => m.cluster === c);
    const baked = Date.parse(row('c2')?.startedAt ?? '') - Date.parse(row('c1')?.succeededAt ?? '');
    assert.ok(
      baked >= BAKE_MS,
      `wave 2 started ${baked} ms after wave 1 Succeeded: ${JSON.stringify(set.status?.clusters)}`,
    );
  });

  it('v2 passes on wave 1, fails its check on wave 2, and the fleet is rolled back', async () => {
    await fleet.applySet('v2', await strategy(), { verification: await verification() });
    const set = await fleet.waitSet('fleet rollback of v2', trainEnded('RolledBack'));
    assert.equal(set.status?.train?.failedCluster, 'c2', JSON.stringify(set.status?.train));
    // The set says where and why: the wave, the cluster and the check.
    assert.match(
      set.status?.train?.message ?? '',
      /^revision \w+ was rolled back on cluster c2 \(wave 2\): .*error-rate: 0\.3 met failureCondition/,
    );
    assert.deepEqual([...(set.status?.train?.rolledBack ?? [])].sort(), ['c1', 'c2']);
    // Wave 2 failed by the metric: its Release rolled back with VerificationFailed, naming the check.
    const c2 = memberReleaseName(SET, 'c2');
    const shown = (ev: Awaited<ReturnType<typeof events>>) =>
      JSON.stringify(ev.map((e) => [e.reason, e.message]));
    const R2 = await waitFor(
      'c2 rolled back by its check (its Events)',
      async () => {
        const ev = await events(sys.client, NS, c2);
        const failed = ev.find((e) => e.reason === 'VerificationFailed');
        const rolledBack = ev.find((e) => e.reason === 'RolloutRolledBack');
        const R = /verification of (sha256:[0-9a-f]+)… failed: error-rate: 0\.3 met failureCondition/.exec(
          failed?.message ?? '',
        )?.[1];
        if (R !== undefined && /reason VerificationFailed/.test(rolledBack?.message ?? '')) return R;
        throw new Error(`Events of ${c2}: ${shown(ev)}`);
      },
      { timeoutMs: 30_000 },
    );
    // Wave 1 had taken the same render and passed its soak on it before wave 2 was given it.
    const c1Events = await events(sys.client, NS, memberReleaseName(SET, 'c1'));
    assert.ok(
      c1Events.some(
        (e) => e.reason === 'Passed' && e.message?.includes(`${R2}… healthy; verification passed`),
      ) &&
        c1Events.some((e) => e.reason === 'RolloutSucceeded' && e.message?.includes(`→ Succeeded (${R2}…`)),
      `c1 passed verification on ${R2}: ${shown(c1Events)}`,
    );
    for (const c of ['c1', 'c2']) {
      await waitFor(`${c} back on v1`, async () => (await fleet.live(c)) === 'v1', { timeoutMs: 120_000 });
    }
  });
});
