// The rollout state machine (docs/design.md#rollout-state-machine) end to end: convoy-controller-manager and
// convoy-observer as separate processes on the real control plane with kwok, a git source. A healthy commit
// succeeds; a commit whose pods never become Ready rolls back at its deadline (its ConfigMap too) and the
// last healthy render is held while the source still gives the bad one; a forced sync retries it once; the
// next healthy commit opens a new rollout. rollback: Never fails instead; a revert to the last healthy render
// that turns unhealthy fails rather than "rolling back" to itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANNOTATION_FORCE_SYNC_AT, API_VERSION } from '../../src/api/constants.ts';
import type { RolloutStatus } from '../../src/api/types.ts';
import { cm, getInventory, getRelease, mergePatch, releaseRef } from '../support/release.ts';
import {
  deadlineOf,
  deployment,
  events,
  gitRelease,
  inRolloutScenario,
  reached,
  webAndCfg,
} from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'rollout-lifecycle' });

const D = '8s';
const short = (ref: string | undefined) => ref?.slice(0, 'sha256:'.length + 12) ?? '';

function states(seen: readonly { rollout: RolloutStatus | undefined }[], refs: Record<string, string>) {
  const name = Object.fromEntries(Object.entries(refs).map(([k, v]) => [v, k]));
  return seen
    .flatMap((s) =>
      s.rollout === undefined ? [] : [`${s.rollout.state}(${name[s.rollout.renderRef] ?? '?'})`],
    )
    .filter((s, i, all) => i === 0 || all[i - 1] !== s);
}

describe('rollout lifecycle', { concurrency: true }, () => {
  test('healthy → Succeeded; never Ready → RolledBack at the deadline with its ConfigMap, held; forced sync retries once; next commit → Succeeded', () =>
    inRolloutScenario(env, 'ro-main', 'main', async ({ ns, repo, log, waitForRollout, live }) => {
      const { client } = env;
      const sha1 = await repo.commit(webAndCfg(1, 'healthy'));
      await client.create(gitRelease(ns, 'app', repo));

      // commit 1 → Succeeded, lastHealthy = R1
      const r1 = await waitForRollout('Succeeded(commit 1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef ?? '';
      assert.equal(r1.status?.lastHealthy?.renderRef, R1);
      assert.equal(r1.status?.lastSuccessful?.renderRef, R1);
      assert.equal(r1.status?.rollout?.reason, 'Healthy');
      assert.equal(r1.status?.conditions?.find((c) => c.type === 'RolloutSucceeded')?.status, 'True');

      // commit 2: pods never Ready, ConfigMap changed → Progressing, then RolledBack after the deadline
      const sha2 = await repo.commit(webAndCfg(2, 'never-ready'));
      const p2 = await waitForRollout(
        'Progressing(commit 2) with a clock',
        (r) => r.state === 'Progressing' && r.revision === sha2 && r.startedAt !== undefined,
      );
      const R2 = p2.status?.rollout?.renderRef ?? '';
      assert.notEqual(R2, R1);
      await waitFor(
        'commit 2 live',
        async () => (await live.tag('web')) === 'v2' && (await live.configMap('cfg'))?.data?.v === '2',
      );
      const rb = await waitForRollout('RolledBack(commit 2)', (r) => r.state === 'RolledBack', 60_000);
      const ro = rb.status?.rollout;
      assert.equal(ro?.renderRef, R2);
      assert.equal(ro?.reason, 'DeadlineExceeded');
      assert.ok(
        Date.parse(ro?.finishedAt ?? '') >= deadlineOf(ro, D),
        `rolled back before the deadline: ${JSON.stringify(ro)}`,
      );
      // R1's objects are live again, the ConfigMap included; the attempt names R1 with reason RolledBack
      assert.equal(await live.tag('web'), 'v1');
      assert.equal((await live.configMap('cfg'))?.data?.v, '1');
      assert.equal(rb.status?.lastAttempted?.renderRef, R1);
      assert.equal(rb.status?.lastAttempted?.reason, 'RolledBack');
      assert.equal(rb.status?.lastSuccessful?.renderRef, R1);
      assert.equal(rb.status?.lastHealthy?.renderRef, R1);
      assert.equal(rb.status?.conditions?.find((c) => c.type === 'RolloutSucceeded')?.status, 'False');
      // The rollback's re-apply of R1 is an entry of its own, triggered by the rollback, with its reason.
      assert.deepEqual(
        rb.status?.history?.map((h) => h.renderRef),
        [...(p2.status?.history ?? []).map((h) => h.renderRef), R1],
      );
      assert.deepEqual(rb.status?.history?.at(-1)?.trigger, { kind: 'Rollback', reason: 'DeadlineExceeded' });
      // ... and R2's entry says how its rollout ended (convoy history shows it)
      const e2 = rb.status?.history?.findLast((h) => h.renderRef === R2);
      assert.deepEqual([e2?.result, e2?.reason], ['RolledBack', 'DeadlineExceeded']);

      // Event and log line name from, to, the render refs and the reason. The Event is recorded after
      // the status write that showed RolledBack, so it may arrive a moment later.
      let evs: Awaited<ReturnType<typeof events>> = [];
      const ev = await waitFor('the RolloutRolledBack Event', async () => {
        evs = await events(client, ns, 'app');
        return evs.find((e) => e.reason === 'RolloutRolledBack');
      }).catch((err: Error) =>
        assert.fail(`${err.message}: ${JSON.stringify(evs.map((e) => [e.reason, e.message]))}`),
      );
      assert.match(
        ev.message ?? '',
        new RegExp(
          `Progressing \\(${short(R2)}.*→ RolledBack \\(${short(R2)}.*reason DeadlineExceeded; last healthy render ${short(R1)}`,
        ),
      );
      assert.ok(evs.some((e) => e.reason === 'RolloutSucceeded' && (e.message ?? '').includes(short(R1))));
      assert.match(
        env.manager.log(),
        /"from":"Progressing","to":"RolledBack","fromRenderRef":"sha256:[0-9a-f]{64}","toRenderRef":"sha256:[0-9a-f]{64}","reason":"DeadlineExceeded"/,
      );

      // later reconciles hold R1 while the source still gives R2: a drifted ConfigMap is put back to R1's
      await mergePatch(
        client,
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'cfg' },
        { data: { v: 'drifted' } },
      );
      await waitFor('the hold re-applies R1', async () => (await live.configMap('cfg'))?.data?.v === '1', {
        timeoutMs: 30_000,
      });
      await env.manager.moreReconciles(3);
      const held = await getRelease(client, ns, 'app');
      assert.equal(held?.status?.currentRender?.renderRef, R2, 'the source still gives R2');
      assert.deepEqual(held?.status?.rollout, ro, 'the rollout is held unchanged');
      assert.equal(await live.tag('web'), 'v1');

      // a forced sync retries the RolledBack render once: Progressing with a new clock, R2 live, RolledBack again
      const forceAt = new Date().toISOString();
      await mergePatch(client, releaseRef(ns, 'app'), {
        metadata: { annotations: { [ANNOTATION_FORCE_SYNC_AT]: forceAt } },
      });
      const retry = await waitForRollout(
        'ForcedRetry',
        (r) => r.state === 'Progressing' && r.reason === 'ForcedRetry' && r.startedAt !== undefined,
      );
      assert.equal(retry.status?.rollout?.renderRef, R2);
      assert.ok(
        Date.parse(retry.status?.rollout?.startedAt ?? '') >= Date.parse(ro?.finishedAt ?? ''),
        'a new clock',
      );
      assert.equal(retry.status?.lastHandledForceSyncAt, forceAt);
      await waitFor('R2 live again', async () => (await live.tag('web')) === 'v2');
      const rb2 = await waitForRollout(
        'RolledBack again',
        (r) => r.state === 'RolledBack' && r.startedAt === retry.status?.rollout?.startedAt,
        60_000,
      );
      assert.equal(await live.tag('web'), 'v1');
      await env.manager.moreReconciles(3);
      const once = await getRelease(client, ns, 'app');
      assert.deepEqual(once?.status?.rollout, rb2.status?.rollout, 'the forced sync was handled once');
      assert.equal(await live.tag('web'), 'v1');

      // commit 3 (healthy) opens a new rollout → Succeeded
      const sha3 = await repo.commit(webAndCfg(3, 'healthy'));
      const r3 = await waitForRollout('Succeeded(commit 3)', reached('Succeeded', sha3), 60_000);
      const R3 = r3.status?.rollout?.renderRef ?? '';
      assert.equal(r3.status?.lastHealthy?.renderRef, R3);
      assert.equal(await live.tag('web'), 'v3');
      assert.equal((await live.configMap('cfg'))?.data?.v, '3');

      assert.deepEqual(states(log.seen, { R1, R2, R3 }), [
        'Progressing(R1)',
        'Succeeded(R1)',
        'Progressing(R2)',
        'RolledBack(R2)',
        'Progressing(R2)',
        'RolledBack(R2)',
        'Progressing(R3)',
        'Succeeded(R3)',
      ]);
    }));

  test('rollback: Never → Failed at the deadline, and R2 stays', () =>
    inRolloutScenario(env, 'ro-never', 'never', async ({ ns, repo, waitForRollout, live }) => {
      const { client } = env;
      const sha1 = await repo.commit(webAndCfg(1, 'healthy'));
      await client.create(gitRelease(ns, 'app', repo, { failurePolicy: { deadline: D, rollback: 'Never' } }));
      const r1 = await waitForRollout('Succeeded(commit 1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef;
      const sha2 = await repo.commit(webAndCfg(2, 'never-ready'));
      const failed = await waitForRollout('Failed(commit 2)', reached('Failed', sha2), 60_000);
      const ro = failed.status?.rollout;
      assert.equal(ro?.reason, 'DeadlineExceeded');
      assert.match(ro?.message ?? '', /no rollback: failurePolicy.rollback is Never/);
      assert.ok(Date.parse(ro?.finishedAt ?? '') >= deadlineOf(ro, D));
      assert.equal(failed.status?.lastHealthy?.renderRef, R1, 'a failure does not clear lastHealthy');
      assert.equal(failed.status?.lastSuccessful?.renderRef, ro?.renderRef);
      await env.manager.moreReconciles(3);
      const later = await getRelease(client, ns, 'app');
      assert.deepEqual(later?.status?.rollout, ro);
      assert.equal(await live.tag('web'), 'v2', 'R2 stays');
      assert.equal((await live.configMap('cfg'))?.data?.v, '2');
      assert.ok(
        (await events(client, ns, 'app')).some(
          (e) => e.reason === 'RolloutFailed' && /→ Failed/.test(e.message ?? ''),
        ),
      );
    }));

  test('a revert to the last healthy render that then turns unhealthy → Failed, not rolled back to itself', () =>
    inRolloutScenario(env, 'ro-revert', 'revert', async ({ ns, repo, waitForRollout, live }) => {
      const { client } = env;
      const good = {
        'app/web.yaml': deployment('web', 'a', 'healthy'),
        'app/cfg.yaml': cm('cfg', { v: 'a' }),
      };
      const shaA = await repo.commit(good);
      await client.create(
        gitRelease(ns, 'app', repo, {
          healthAssessment: {
            deadline: '3s',
            globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
            localRuleSetSelector: { matchLabels: { team: 'revert' } },
          },
        }),
      );
      const ra = await waitForRollout('Succeeded(A)', reached('Succeeded', shaA));
      const RA = ra.status?.rollout?.renderRef;
      const shaB = await repo.commit({ 'app/web.yaml': deployment('web', 'b', 'never-ready') });
      await waitForRollout('RolledBack(B)', reached('RolledBack', shaB), 60_000);
      assert.equal(await live.tag('web'), 'a');

      // A's render now fails a rule (a changed dependency, in effect); the source is reverted to A.
      await client.create({
        apiVersion: API_VERSION,
        kind: 'HealthRuleSet',
        metadata: { name: 'broken', namespace: ns, labels: { team: 'revert' } },
        spec: { rules: [{ name: 'cfg-broken', match: { kinds: ['ConfigMap'] }, healthy: 'false' }] },
      } as never);
      // The observer judges A's live ConfigMap by the new rule before the revert: otherwise the revert's
      // first verdict reads A's entries as last assessed (Healthy) and Succeeds at once (ci6).
      await waitFor("A's ConfigMap assessed Degraded by the new rule", async () => {
        const e = (await getInventory(client, ns, 'app'))?.entries?.find((x) => x.name === 'cfg');
        return e?.state === 'Degraded' && e.rule?.includes('cfg-broken') === true;
      });
      const shaRevert = await repo.commit(good);
      const p = await waitForRollout('Progressing(revert)', reached('Progressing', shaRevert));
      assert.equal(p.status?.rollout?.renderRef, RA, 'the revert gives the last healthy render again');
      assert.equal(p.status?.lastHealthy?.renderRef, RA);
      const failed = await waitForRollout('Failed(revert)', (r) => r.state === 'Failed', 60_000);
      assert.equal(failed.status?.rollout?.renderRef, RA);
      assert.match(
        failed.status?.rollout?.message ?? '',
        /no rollback: the last healthy render is this render/,
      );
      assert.equal(await live.tag('web'), 'a');
    }));
});
