// "If the observer stops, the inventory receives no new health. The verdict stays Pending, so convoy waits
// and does not roll back" (docs/design.md#verdict), end to end: the observer process is SIGKILLed after it
// has assessed the new render as Progressing, so its shard Lease is not released; once the Lease has expired
// (before the rollout deadline, so no verdict could have been read from stale health in between), the
// deadline passes with no rollback; when the observer is back, the rollout resumes and rolls back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getInventory, getRelease } from '../support/release.ts';
import {
  deadlineOf,
  deployment,
  gitRelease,
  inRolloutScenario,
  liveTag,
  reached,
} from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const LEASE_SECONDS = 3;
const D = '15s';
const env = convoySystemPerFile({ identity: 'rollout-observer', observerLeaseDuration: `${LEASE_SECONDS}s` });

test('the observer stopped after assessing R2 as Progressing: verdict Pending, no rollback past the deadline; it resumes when the observer is back', () =>
  inRolloutScenario(env, 'ro-observer', 'observer', async ({ ns, repo, log, waitForRollout }) => {
    const { client } = env;
    const sha1 = await repo.commit({ 'app/web.yaml': deployment('web', 'v1', 'healthy') });
    await client.create(
      gitRelease(ns, 'app', repo, { failurePolicy: { deadline: D, rollback: 'OnFailure' } }),
    );
    const r1 = await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1));
    const R1 = r1.status?.rollout?.renderRef;

    const sha2 = await repo.commit({ 'app/web.yaml': deployment('web', 'v2', 'never-ready') });
    const p2 = await waitForRollout(
      'Progressing(R2)',
      (r) => r.state === 'Progressing' && r.revision === sha2 && r.startedAt !== undefined,
    );
    const R2 = p2.status?.rollout?.renderRef ?? '';
    const deadline = deadlineOf(p2.status?.rollout, D);
    await waitFor('the observer assessed R2 as not healthy', async () => {
      const e = (await getInventory(client, ns, 'app'))?.entries?.find((x) => x.name === 'web');
      return (
        e?.renderRef === R2 &&
        e.assessedRenderRef === R2 &&
        (e.state === 'Progressing' || e.state === 'Degraded')
      );
    });

    assert.equal(await env.observer.kill(), 'SIGKILL');
    await waitFor('the observer Lease to expire', async () => !(await env.observerLive()), {
      timeoutMs: 30_000,
    });
    assert.ok(
      Date.now() < deadline,
      'the Lease expired before the deadline, so no verdict could use stale health',
    );

    // past the deadline, with reconciles after it: still Progressing, R2 still live
    await waitFor('the deadline to pass', async () => Date.now() > deadline + 1_000, {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    await env.manager.moreReconciles(3);
    const waiting = await getRelease(client, ns, 'app');
    assert.equal(waiting?.status?.rollout?.state, 'Progressing', JSON.stringify(waiting?.status?.rollout));
    assert.equal(waiting?.status?.rollout?.renderRef, R2);
    assert.equal(await liveTag(client, ns, 'web'), 'v2');
    assert.ok(!(await env.observerLive()), 'the observer was away the whole time');

    // the observer is back: the verdict is read again and the rollout resumes
    const back = Date.now();
    await env.restartObserver();
    const rb = await waitForRollout(
      'RolledBack(R2) once the observer is back',
      (r) => r.state === 'RolledBack',
      60_000,
    );
    assert.equal(rb.status?.rollout?.reason, 'DeadlineExceeded');
    assert.ok(Date.parse(rb.status?.rollout?.finishedAt ?? '') >= Math.floor(back / 1000) * 1000);
    assert.equal(rb.status?.lastSuccessful?.renderRef, R1);
    await waitFor('R1 live again', async () => (await liveTag(client, ns, 'web')) === 'v1');
    assert.deepEqual(
      [...new Set(log.seen.filter((s) => s.rollout?.renderRef === R2).map((s) => s.rollout?.state))],
      ['Progressing', 'RolledBack'],
    );
  }));
