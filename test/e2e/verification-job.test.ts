// Job checks end to end (docs/design.md#verification, docs/rollouts.md#verification) on the real control
// plane: each measurement is one Job the controller creates in the target namespace and the observer
// reads. A Job that completes passes the soak → Succeeded; with an Argo Rollouts AnalysisTemplate whose
// job metric's Job fails (the kwok test stage fails its pod), the next render is RolledBack with
// VerificationFailed naming the check. After each, no Job of the Release's checks is left. A Job that
// cannot make its pod (a ServiceAccount that does not exist) says so in the check's message, is an Error
// at its timeout and holds the rollout inconclusive, never rolled back; deleting the Release deletes its
// Jobs.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { LABEL_RELEASE } from '../../src/api/constants.ts';
import type { VerificationCheck } from '../../src/api/schema/verification.ts';
import type { Release } from '../../src/api/types.ts';
import { LABEL_VERIFICATION_CHECK } from '../../src/api/verification-job.ts';
import type { Fixture } from '../../src/render/git/testsupport.ts';
import { releaseLabelValue } from '../../src/store/layout.ts';
import { TEST_LABEL_FAIL } from '../../src/testenv/stages.ts';
import { installAnalysisTemplateCrd } from '../support/argo.ts';
import { condition, deleteReleaseAndWait, getInventory, mergePatch, releaseRef } from '../support/release.ts';
import { events, gitRelease, liveTag, namespaceWithRepo, reached, trafficApp } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { verificationWaits } from '../support/verification.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({
  identity: 'verification-job',
  setUp: (sys) => installAnalysisTemplateCrd(sys.client),
});
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * A job check whose Job's one pod succeeds without retries; with `serviceAccount` (one that does not
 * exist) the Job cannot make its pod at all.
 */
function smoke(opts: { serviceAccount?: string; timeout?: string } = {}): VerificationCheck {
  return {
    name: 'smoke',
    job: {
      metadata: { labels: { team: 'web' } },
      spec: {
        backoffLimit: 0,
        template: {
          metadata: { labels: { app: 'smoke' } },
          spec: {
            ...(opts.serviceAccount !== undefined ? { serviceAccountName: opts.serviceAccount } : {}),
            containers: [{ name: 'curl', image: 'registry.invalid/convoy/smoke:1', args: ['{{args.url}}'] }],
          },
        },
      },
      timeout: opts.timeout ?? '1m',
    },
  };
}

function release(ns: string, repo: Fixture, check: VerificationCheck): Release {
  return gitRelease(ns, 'app', repo, {
    failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
    verification: {
      soak: '3s',
      interval: '1s',
      args: [{ name: 'url', value: 'http://web' }],
      checks: [check],
    },
  });
}

const { rolloutOf, rolledBack } = verificationWaits(env);

/** The Jobs of ns/app's checks in the cluster. */
async function checkJobs(ns: string): Promise<string[]> {
  const jobs = await env.client.list<{ metadata: { name: string } }>(
    { apiVersion: 'batch/v1', kind: 'Job', namespace: ns },
    { labelSelector: `${LABEL_RELEASE}=${releaseLabelValue(ns, 'app')},${LABEL_VERIFICATION_CHECK}` },
  );
  return jobs.map((j) => j.metadata.name);
}

const noJobsLeft = (ns: string, what: string) =>
  waitFor(`${ns}: no Job of a check left ${what}`, async () => (await checkJobs(ns)).length === 0, {
    timeoutMs: 60_000,
  });

test('a job check passes its soak; an AnalysisTemplate job metric that fails rolls the next render back; no Job is left', async () => {
  const ns = 'vj-job';
  const repo = await namespaceWithRepo(env, ns, cleanups);

  const sha1 = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(release(ns, repo, smoke()));
  const r1 = await rolloutOf(ns, 'Succeeded(R1) after its job check', reached('Succeeded', sha1));
  assert.equal(condition(r1, 'Verified')?.status, 'True', JSON.stringify(condition(r1, 'Verified')));
  const v1 = (await getInventory(env.client, ns, 'app'))?.verification;
  assert.equal(v1?.phase, 'Passed', JSON.stringify(v1));
  const c1 = v1?.checks?.find((c) => c.name === 'smoke');
  assert.equal(c1?.provider, 'job');
  assert.ok((c1?.successful ?? 0) >= 1 && c1?.failed === 0, JSON.stringify(c1));
  assert.equal(c1?.run, undefined, 'no Job asked for once Passed');
  // Each measurement was its own Job, named from the release, the check, the render and its index.
  const ref = (r1.status?.rollout?.renderRef ?? '').slice('sha256:'.length, 'sha256:'.length + 10);
  const said = (c1?.measurements ?? []).map((m) => m.message ?? '');
  assert.ok(said.includes(`the Job succeeded: Job ${ns}/app-smoke-${ref}-0`), JSON.stringify(said));
  const created = (await events(env.client, ns, 'app')).filter((e) =>
    (e.message ?? '').startsWith(`created Job ${ns}/app-smoke-${ref}-`),
  );
  assert.ok(created.length >= 1, 'the controller said it created the Jobs');
  await noJobsLeft(ns, 'after R1 passed');

  // R2 is as Ready as R1, but its verification is now an Argo Rollouts AnalysisTemplate (the shape of
  // the argo-rollouts job provider docs) whose Job fails.
  const template = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'smoke', namespace: ns },
    spec: {
      args: [{ name: 'url' }],
      metrics: [
        {
          name: 'smoke',
          provider: {
            job: {
              metadata: { annotations: { foo: 'bar' }, labels: { foo: 'bar' } },
              spec: {
                backoffLimit: 0,
                template: {
                  metadata: { labels: { [TEST_LABEL_FAIL]: 'true' } },
                  spec: {
                    containers: [
                      { name: 'test', image: 'my-image:latest', command: ['my-test-script', '{{args.url}}'] },
                    ],
                    restartPolicy: 'Never',
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  await env.client.create(template);
  await mergePatch(env.client, releaseRef(ns, 'app'), {
    spec: { verification: { checks: null, templateRefs: [{ name: 'smoke' }] } },
  });
  const sha2 = await repo.commit(trafficApp('v2', '0'));
  const { message: msg } = await rolledBack(ns, sha2, 'RolledBack(R2) by its failed job check');
  assert.match(msg, /smoke: the Job failed: Job vj-job\/app-smoke-[0-9a-f]{10}-0/, msg);
  await waitFor('R1 live again', async () => (await liveTag(env.client, ns, 'web')) === 'v1');
  await noJobsLeft(ns, 'after R2 was rolled back');
});

test('a Job that cannot start says why, is an Error at its timeout, holds without a rollback; deleting the Release deletes its Jobs', async () => {
  const ns = 'vj-stuck';
  const repo = await namespaceWithRepo(env, ns, cleanups);
  const sha = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(release(ns, repo, smoke({ serviceAccount: 'missing-sa', timeout: '4s' })));

  const check = async () =>
    (await getInventory(env.client, ns, 'app'))?.verification?.checks?.find((c) => c.name === 'smoke');
  const running = await waitFor('the check says why its Job has no pod', async () => {
    const c = await check();
    return c?.run !== undefined && /FailedCreate/.test(c.message ?? '') ? c : undefined;
  });
  assert.match(running.message ?? '', /serviceaccount "missing-sa" not found/, running.message);
  const job = await env.client.get<{ spec?: { activeDeadlineSeconds?: number } }>({
    apiVersion: 'batch/v1',
    kind: 'Job',
    namespace: ns,
    name: running.run?.name ?? '',
  });
  assert.equal(job?.spec?.activeDeadlineSeconds, 4 + 10, 'the cluster ends it a little past the timeout');

  const held = await rolloutOf(ns, 'held: Verified=False VerificationInconclusive', (_r, rel) => {
    return condition(rel, 'Verified')?.reason === 'VerificationInconclusive';
  });
  assert.equal(held.status?.rollout?.state, 'Progressing', 'an Error is never a rollback');
  assert.equal(held.status?.rollout?.revision, sha);
  const errored = (await check())?.measurements?.find((m) => m.phase === 'Error');
  assert.match(
    errored?.message ?? '',
    /the Job did not finish: Job vj-stuck\/app-smoke-.* did not finish within 4s/,
  );

  await deleteReleaseAndWait(env.client, ns, 'app');
  await noJobsLeft(ns, 'after the Release was deleted');
});
