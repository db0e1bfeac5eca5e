// The rollout clock and the gates end to end (docs/design.md#rollout-rules), with
// convoy-controller-manager and convoy-observer as separate processes on the real control plane with
// kwok: a render approved in Manual mode later than its deadline still gets its full deadline; a
// WaitPrevious wave whose previous wave never becomes healthy rolls back at the wave timeout; a Healthy
// verdict of R1 never makes R2 Succeeded; a pin keeps the rollout and an unpin re-opens it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANNOTATION_APPROVED_RENDER, ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import { getInventory, getRelease, mergePatch, releaseRef } from '../support/release.ts';
import {
  deadlineOf,
  deployment,
  gitRelease,
  inRolloutScenario,
  reached,
  webAndCfg,
} from '../support/rollout.ts';
import { convoySystemPerFile, DEFAULT_RULES_SELECTOR } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'rollout-gates' });

type Pod = {
  metadata: { annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
};

/** When the pod of the Deployment's template `tag` turned Ready (second precision, from the kubelet stage). */
async function podReadyAt(ns: string, tag: string): Promise<number | undefined> {
  const pods = await env.client.list<Pod>({ apiVersion: 'v1', kind: 'Pod', namespace: ns });
  const ready = pods
    .filter((p) => p.metadata.annotations?.['example.com/tag'] === tag)
    .map((p) => p.status?.conditions?.find((c) => c.type === 'Ready'))
    .filter((c) => c?.status === 'True');
  const t = ready[0]?.lastTransitionTime;
  return t === undefined ? undefined : Date.parse(t);
}

describe('rollout clock and gates', { concurrency: true }, () => {
  test('Manual mode: a render approved later than its deadline still gets its full deadline from its first apply', () =>
    inRolloutScenario(env, 'ro-manual', 'manual', async ({ ns, repo, log, waitForRollout, live }) => {
      const { client } = env;
      const approve = (ref: string) =>
        mergePatch(client, releaseRef(ns, 'app'), {
          metadata: { annotations: { [ANNOTATION_APPROVED_RENDER]: ref } },
        });
      const sha1 = await repo.commit({ 'app/web.yaml': deployment('web', 'v1', 'healthy') });
      await client.create(gitRelease(ns, 'app', repo, { syncPolicy: { mode: 'Manual', interval: '1s' } }));
      const held1 = await waitForRollout('R1 waits for approval', reached('Progressing', sha1));
      await approve(held1.status?.rollout?.renderRef ?? '');
      await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1));

      // R2 becomes Ready 3 s after it is applied: within its deadline of 8 s, but only if the clock starts at the apply.
      const sha2 = await repo.commit({ 'app/web.yaml': deployment('web', 'v2', { readyAfter: '3s' }) });
      const held2 = await waitForRollout('R2 waits for approval', reached('Progressing', sha2));
      const R2 = held2.status?.rollout?.renderRef ?? '';
      const appeared = Date.now();
      const seenWhileHeld: unknown[] = [];
      await waitFor(
        'more than the deadline to pass while R2 waits',
        async () => {
          const r = await getRelease(client, ns, 'app');
          const ro = r?.status?.rollout;
          const tag = await live.tag('web');
          // R2 stays Progressing without a clock and unapplied while the gate holds it
          if (
            ro?.renderRef !== R2 ||
            ro.state !== 'Progressing' ||
            ro.startedAt !== undefined ||
            tag !== 'v1'
          )
            seenWhileHeld.push({ ro, tag });
          return Date.now() > appeared + 9_000;
        },
        { timeoutMs: 20_000, intervalMs: 500 },
      );
      assert.deepEqual(seenWhileHeld, []);
      const approvedAt = Date.now();
      await approve(R2);
      const done = await waitForRollout(
        'R2 settles',
        (r) => r.renderRef === R2 && r.state !== 'Progressing',
        60_000,
      );
      const ro = done.status?.rollout;
      assert.equal(ro?.state, 'Succeeded', JSON.stringify(ro));
      assert.ok(
        Date.parse(ro?.startedAt ?? '') >= Math.floor(approvedAt / 1000) * 1000,
        `clock from the apply: ${JSON.stringify(ro)}`,
      );
      const readyAt = await podReadyAt(ns, 'v2');
      assert.ok(
        readyAt !== undefined && readyAt >= Date.parse(ro?.startedAt ?? ''),
        'R2 was unhealthy after its apply',
      );
      assert.ok(!log.seen.some((s) => s.rollout?.state === 'RolledBack'), 'never rolled back');
    }));

  test('a WaitPrevious wave whose previous wave never becomes healthy → RolledBack after the wave timeout', () =>
    inRolloutScenario(env, 'ro-wave', 'wave', async ({ ns, repo, waitForRollout, live }) => {
      const { client } = env;
      const sha1 = await repo.commit(webAndCfg(1, 'healthy', true));
      await client.create(
        gitRelease(ns, 'app', repo, {
          waves: [{ wave: 1, healthStrategy: 'WaitPrevious', timeout: '6s' }],
          // Degraded well before the wave timeout: no health change is left to wake the controller at it
          healthAssessment: { deadline: '1s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
          // no periodic pass: only the rollout's own wake-ups (health changes, the wave timeout) drive it
          syncPolicy: { interval: '0' },
          // far beyond the wave timeout: the wave gate, not the deadline, must end this rollout
          failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
        }),
      );
      const r1 = await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1), 60_000);
      const R1 = r1.status?.rollout?.renderRef;
      // status.waves[].completedAt: both waves of R1 complete once healthy
      const w1 = await waitFor('R1 waves completed', async () => {
        const w = (await getRelease(client, ns, 'app'))?.status?.waves ?? [];
        return w.length === 2 && w.every((x) => x.renderRef === R1 && x.completedAt !== undefined) && w;
      });
      assert.ok(
        Date.parse(w1[1]?.startedAt ?? '') >= Date.parse(w1[0]?.completedAt ?? ''),
        `wave 1 started after wave 0 completed: ${JSON.stringify(w1)}`,
      );

      const sha2 = await repo.commit(webAndCfg(2, 'never-ready', true));
      // what a /sync (a webhook) sets: with interval 0 nothing else polls the source
      await mergePatch(client, releaseRef(ns, 'app'), {
        metadata: { annotations: { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() } },
      });
      const rb = await waitForRollout(
        'RolledBack(R2) by the wave timeout',
        reached('RolledBack', sha2),
        60_000,
      );
      const ro = rb.status?.rollout;
      assert.equal(ro?.reason, 'WaveTimeout');
      const wave0 = rb.status?.waves?.find((w) => w.renderRef === ro?.renderRef && w.wave === 0);
      assert.ok(wave0 !== undefined, JSON.stringify(rb.status?.waves));
      assert.ok(
        Date.parse(ro?.finishedAt ?? '') - Date.parse(wave0.startedAt) >= 6_000,
        JSON.stringify({ ro, wave0 }),
      );
      assert.ok(Date.parse(ro?.finishedAt ?? '') < deadlineOf(ro, '300s'), 'before the rollout deadline');
      assert.equal(
        rb.status?.waves?.some((w) => w.renderRef === ro?.renderRef && w.wave === 1),
        false,
        'wave 1 of R2 never applied',
      );
      assert.equal(await live.tag('web'), 'v1');
      assert.equal((await live.configMap('cfg'))?.data?.v, '1');
      assert.equal(rb.status?.lastSuccessful?.renderRef, R1);
      // The record keeps R2, rolled back before its sync completed, with the trigger its first attempt
      // recorded, then the rollback's own re-apply of R1.
      const history = rb.status?.history ?? [];
      assert.deepEqual(
        history.map((h) => [h.renderRef, h.result]),
        [
          [R1, 'Succeeded'],
          [ro?.renderRef, 'RolledBack'],
          [R1, undefined],
        ],
      );
      assert.ok(history[1]?.trigger !== undefined, JSON.stringify(history));
      assert.deepEqual(history[2]?.trigger, { kind: 'Rollback', reason: 'WaveTimeout' });
    }));

  test('no early verdict: a Healthy verdict of R1 never makes R2 Succeeded', () =>
    inRolloutScenario(env, 'ro-early', 'early', async ({ ns, repo, log, waitForRollout }) => {
      const { client } = env;
      const sha1 = await repo.commit(webAndCfg(1, 'healthy'));
      await client.create(
        gitRelease(ns, 'app', repo, { failurePolicy: { deadline: '60s', rollback: 'OnFailure' } }),
      );
      const r1 = await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef;
      // The ConfigMap is the same in R2: its entry stays Healthy (assessed for R1) throughout.
      const sha2 = await repo.commit({ 'app/web.yaml': deployment('web', 'v2', { readyAfter: '6s' }) });
      const r2 = await waitForRollout('Succeeded(R2)', reached('Succeeded', sha2), 60_000);
      const R2 = r2.status?.rollout?.renderRef ?? '';
      const readyAt = await podReadyAt(ns, 'v2');
      assert.ok(readyAt !== undefined);
      const first = log.seen.find((s) => s.rollout?.renderRef === R2 && s.rollout.state === 'Succeeded');
      assert.ok(
        first !== undefined && first.at >= readyAt,
        `Succeeded(R2) seen at ${first?.at}, pod Ready at ${readyAt}`,
      );
      assert.ok(Date.parse(r2.status?.rollout?.finishedAt ?? '') >= readyAt);
      const ofR2 = log.seen.filter((s) => s.rollout?.renderRef === R2).map((s) => s.rollout?.state);
      assert.deepEqual([...new Set(ofR2)], ['Progressing', 'Succeeded']);
      assert.notEqual(R1, R2);
      assert.equal(r2.status?.lastHealthy?.renderRef, R2);
      const inv = await getInventory(client, ns, 'app');
      assert.ok(
        inv?.entries?.every((e) => e.renderRef === R2 && e.assessedRenderRef === R2 && e.state === 'Healthy'),
      );
    }));

  test('a first render its dry run refuses ends Failed at its deadline, with the cause', () =>
    inRolloutScenario(env, 'ro-refused', 'refused', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      // A ConfigMap whose data value is not a string: the API refuses it at the dry run, every retry.
      const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  k: {nested: 1}\n';
      const sha1 = await repo.commit({ 'app/bad.yaml': bad });
      await client.create(
        gitRelease(ns, 'app', repo, { failurePolicy: { deadline: '5s', rollback: 'OnFailure' } }),
      );
      const r = await waitForRollout('Failed(R1) at its deadline', reached('Failed', sha1));
      assert.match(
        r.status?.rollout?.message ?? '',
        /its sync fails: DryRunFailed/,
        r.status?.rollout?.message,
      );
      const started = Date.parse(r.status?.rollout?.startedAt ?? '');
      const finished = Date.parse(r.status?.rollout?.finishedAt ?? '');
      assert.ok(finished - started >= 5000, `Failed after ${finished - started} ms, before its 5 s deadline`);
      assert.equal(
        await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'bad' }),
        undefined,
      );
    }));

  test('pin: the rollout is kept and no decision runs; unpin re-opens Progressing for the source render with a fresh clock', () =>
    inRolloutScenario(env, 'ro-pin', 'pin', async ({ ns, repo, log, waitForRollout, live }) => {
      const { client } = env;
      const sha1 = await repo.commit({ 'app/web.yaml': deployment('web', 'v1', 'healthy') });
      await client.create(gitRelease(ns, 'app', repo));
      const r1 = await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef ?? '';
      const sha2 = await repo.commit({ 'app/web.yaml': deployment('web', 'v2', 'healthy') });
      const r2 = await waitForRollout('Succeeded(R2)', reached('Succeeded', sha2));
      const kept = r2.status?.rollout;

      await mergePatch(client, releaseRef(ns, 'app'), { spec: { pin: { renderRef: R1 } } });
      await waitFor('R1 live under the pin', async () => (await live.tag('web')) === 'v1');
      const pinned = await waitFor('pinned status', async () => {
        const r = await getRelease(client, ns, 'app');
        return r?.status?.lastSuccessful?.renderRef === R1 && r.status.currentRender?.renderRef === R1 && r;
      });
      assert.deepEqual(pinned.status?.rollout, kept, 'status.rollout keeps its value under a pin');

      const unpinnedAt = Date.now();
      await mergePatch(client, releaseRef(ns, 'app'), { spec: { pin: null } });
      // From the watch's record, not a poll: R2's pods are Ready already, so the re-opened Progressing can
      // turn Succeeded within one poll interval.
      const reopened = await waitFor('Progressing(R2) re-opened (watch)', async () => {
        const s = log.seen.find(
          (x) =>
            x.at >= unpinnedAt &&
            x.rollout?.renderRef === kept?.renderRef &&
            x.rollout?.reason === 'Unpinned',
        );
        return s?.rollout ?? false;
      });
      assert.equal(reopened.state, 'Progressing');
      // A fresh clock: it starts when the unpin is reconciled, not when R2 first rolled out. startedAt and
      // finishedAt have one-second resolution, so the new start may share the second of R2's finish (or
      // of the unpin): compare against the unpin's second, never strictly.
      const fresh = reopened.startedAt ?? '';
      assert.ok(
        Date.parse(fresh) >= Math.floor(unpinnedAt / 1000) * 1000,
        `startedAt ${fresh} is not before the unpin (${new Date(unpinnedAt).toISOString()})`,
      );
      assert.ok(
        Date.parse(fresh) >= Date.parse(kept?.finishedAt ?? ''),
        'not before R2 finished the first time',
      );
      const again = await waitForRollout(
        'Succeeded(R2) again',
        (r) => r.state === 'Succeeded' && r.reason === 'Healthy' && r.renderRef === kept?.renderRef,
        60_000,
      );
      assert.equal(again.status?.rollout?.startedAt, fresh, 'the re-opened rollout ran on the fresh clock');
      assert.equal(await live.tag('web'), 'v2');
    }));
});
