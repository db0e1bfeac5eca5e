// A steady system sends no write (docs/design.md#inventory-parts, "a
// steady system writes nothing"): once a few Releases with an interval (inline, and one of a git
// repository) are all applied, Healthy and their render lastHealthy, the requests both convoy processes
// send (their own count, convoy_kube_requests_total, by method and resource) are taken over a window that
// spans several interval reconciles and health passes of every Release. Asserted: no POST, PUT, PATCH or
// DELETE but Lease renewals, no Release or inventory changes its resourceVersion, and the observer reads
// no target object from the API (its watch caches answer, docs/design.md#watched-reads). The requests of
// the window are printed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../../src/api/types.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { makeRepo } from '../../src/render/git/testsupport.ts';
import { configMap, deployment, inlineRelease, manifests } from '../support/hooks.ts';
import { condition, getInventory, getRelease, gitRelease } from '../support/release.ts';
import { convoySystemPerFile, DEFAULT_HEALTH } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'steady-state' });

const NS = 'steady';
/** Inline Releases app-0…, and one of a git repository (its interval reconcile fetches). */
const INLINE = 3;
const NAMES = [...Array.from({ length: INLINE }, (_, i) => `app-${i}`), 'git-app'];
const RELEASES = NAMES.length;
/** Interval reconciles (and health passes, which follow the interval too) of each Release in the window. */
const ROUNDS = 3;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** convoy_kube_requests_total of one process by "METHOD resource". */
function requestsOf(metrics: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('convoy_kube_requests_total{')) continue;
    const method = /method="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    out.set(`${method} ${resource}`, Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

function delta(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) out.set(k, v - (a.get(k) ?? 0));
  return out;
}

const writesIn = (d: Map<string, number>) =>
  [...d].filter(([k]) => WRITES.has(k.split(' ')[0] ?? '') && k.split(' ')[1] !== 'leases');
const show = (d: Map<string, number>) => [...d].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';

const healthPasses = async () => env.observer.metric('convoy_health_passes_total');

/** Every Release's and inventory's resourceVersion. */
async function versions(): Promise<string[]> {
  const out: string[] = [];
  for (const name of NAMES) {
    const r = await getRelease(env.client, NS, name);
    const inv = await getInventory(env.client, NS, name);
    out.push(`${name} ${r?.metadata.resourceVersion} ${inv?.metadata.resourceVersion}`);
  }
  return out;
}

/** Applied, Healthy, and its render is lastHealthy (no failurePolicy: no status.rollout). */
const settled = (r: Release) =>
  condition(r, 'Healthy')?.status === 'True' &&
  condition(r, 'Ready')?.status === 'True' &&
  r.status?.lastAttempted?.applied === true &&
  r.status?.lastHealthy?.renderRef === r.status?.lastAttempted?.renderRef;

test('Releases all applied and Healthy: interval reconciles and health passes write nothing', async () => {
  await env.namespace(NS);
  const spec = { healthAssessment: DEFAULT_HEALTH, syncPolicy: { interval: '3s' } };
  for (let i = 0; i < INLINE; i++)
    await env.client.create(
      inlineRelease(NS, `app-${i}`, [configMap(`config-${i}`), deployment(`web-${i}`)], spec),
    );
  const repo = await makeRepo('steady');
  try {
    await repo.commit({ 'app/all.yaml': manifests([configMap('git-config'), deployment('git-web')]) });
    await env.client.create(gitRelease(NS, 'git-app', repo, spec));
    await steadyWindow();
  } finally {
    await repo.cleanup();
  }
});

async function steadyWindow(): Promise<void> {
  for (const name of NAMES) {
    await env.waitForRelease(NS, name, 'Healthy, Ready, lastHealthy', settled, 180_000).catch(async (err) => {
      const r = await getRelease(env.client, NS, name);
      throw new Error(`${errorMessage(err)}\nstatus: ${JSON.stringify(r?.status)}`);
    });
  }

  // Past the edge: every Release has had an interval reconcile and a health pass since it settled.
  await env.manager.moreReconciles(RELEASES, { timeoutMs: 60_000 });
  const passes0 = await healthPasses();
  await waitFor('a health pass of each Release', async () => (await healthPasses()) >= passes0 + RELEASES, {
    timeoutMs: 60_000,
  });

  const before = await versions();
  const m0 = requestsOf(await env.manager.metrics());
  const o0 = requestsOf(await env.observer.metrics());
  const reconciles0 = await env.manager.reconciles();
  const passes1 = await healthPasses();
  const started = Date.now();
  await env.manager.moreReconciles(ROUNDS * RELEASES, { since: reconciles0, timeoutMs: 120_000 });
  await waitFor(
    `${ROUNDS * RELEASES} health passes`,
    async () => (await healthPasses()) >= passes1 + ROUNDS * RELEASES,
    { timeoutMs: 120_000 },
  );
  const m = delta(m0, requestsOf(await env.manager.metrics()));
  const o = delta(o0, requestsOf(await env.observer.metrics()));
  const reconciles = (await env.manager.reconciles()) - reconciles0;
  const passes = (await healthPasses()) - passes1;
  const after = await versions();
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `steady window ${seconds.toFixed(1)} s, ${reconciles} reconciles, ${passes} health passes\n` +
      `  controller-manager: ${show(m)}\n  observer: ${show(o)}`,
  );

  assert.deepEqual(writesIn(m), [], `the controller-manager wrote: ${show(m)}\n${env.logs()}`);
  assert.deepEqual(writesIn(o), [], `the observer wrote: ${show(o)}\n${env.logs()}`);
  assert.deepEqual(after, before, 'no Release or inventory changed');
  const targetReads = [...o].filter(([k]) => /^(GET|LIST) (configmaps|deployments|pods)$/.test(k));
  assert.deepEqual(targetReads, [], `the observer read target objects from the API: ${show(o)}`);
}
