// Verification's other checks and faults end to end (docs/design.md#verification, docs/rollouts.md#verification),
// on the real control plane beside verification.test.ts, one convoy system for the file:
// - a web check reading a loopback JSON answer that the render's own ConfigMap sets → Succeeded; a render
//   that makes it answer a failing value → RolledBack, VerificationFailed naming the check and the URL;
// - an Argo Rollouts AnalysisTemplate copied from the argo-rollouts docs (only its address changed), read
//   through a minimal argoproj.io CRD → Succeeded; a template with a provider convoy does not read
//   (datadog) → Verified=False naming the template, the metric and the field, and no rollback;
// - tenancy and faults: a bearer token Secret that exists only in another namespace → held inconclusive
//   naming the Secret, its value nowhere; a Prometheus that accepts and never answers → every measurement
//   an Error at the check's timeout, held, no rollback;
// - the observer killed mid-soak → Pending past the soak's end, no rollback; back → the soak resumes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import type { VerificationStatus } from '../../src/api/index.ts';
import type { VerificationCheck } from '../../src/api/schema/verification.ts';
import type { Release } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import type { Fixture } from '../../src/render/git/testsupport.ts';
import { startPrometheus, type TestPrometheus } from '../../src/testenv/prometheus.ts';
import { startTrafficSim, type TrafficSim } from '../../src/testenv/traffic-sim.ts';
import { installAnalysisTemplateCrd } from '../support/argo.ts';
import { condition, getInventory, getRelease } from '../support/release.ts';
import {
  events,
  gitRelease,
  liveConfigMap,
  liveTag,
  namespaceWithRepo,
  reached,
  trafficApp,
} from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { verificationWaits } from '../support/verification.ts';
import { waitFor } from '../support/wait.ts';

/** Lets the observer-killed test see the Lease expire soon after the kill. */
const LEASE_SECONDS = 3;
let prom: TestPrometheus;
/** Scraped by `prom`: steady traffic without errors (Istio's series too), for the AnalysisTemplate's success rate. */
let promSim: TrafficSim;
const cleanups: (() => Promise<unknown>)[] = [];

const env = convoySystemPerFile({
  identity: 'verification-checks',
  observerLeaseDuration: `${LEASE_SECONDS}s`,
  setUp: async (sys) => {
    await installAnalysisTemplateCrd(sys.client);
    promSim = await startTrafficSim();
    prom = await startPrometheus({ targets: [promSim.target] });
  },
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  await prom?.stop();
  await promSim?.stop();
});

/** A new namespace and git repository for one test; the repository is removed after the file. */
const scenario = (ns: string): Promise<Fixture> => namespaceWithRepo(env, ns, cleanups);

/** A loopback HTTP server answering every request with `answer()` as JSON; closed after the file. */
async function jsonServer(answer: () => unknown): Promise<{ readonly url: string; requests(): number }> {
  let requests = 0;
  const server = createHttpServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer()));
  });
  const url = await listen(server);
  cleanups.push(() => close(server));
  return { url, requests: () => requests };
}

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`);
    });
  });
}

function close(server: Server | ReturnType<typeof createTcpServer>): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function release(ns: string, repo: Fixture, verification: Release['spec']['verification']): Release {
  return gitRelease(ns, 'app', repo, {
    // Long: a soak is never cut short by the deadline, and nothing here should reach it.
    failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
    ...(verification === undefined ? {} : { verification }),
  });
}

const verified = (r: Release | undefined) => condition(r, 'Verified');

/** ns/app verified by the AnalysisTemplate `template` alone, its arg service-name `service`: a soak of 5 s. */
const byTemplate = (ns: string, repo: Fixture, template: string, service: string): Release =>
  release(ns, repo, {
    soak: '5s',
    interval: '1s',
    templateRefs: [{ name: template }],
    args: [{ name: 'service-name', value: service }],
  });

const { rolloutOf, rolledBack } = verificationWaits(env);

interface Stood {
  readonly release: Release | undefined;
  readonly verification: VerificationStatus | undefined;
}

/** Polls ns/app and its inventory's verification until `ok`; a timeout says where both stood. */
async function until(
  ns: string,
  what: string,
  ok: (s: Stood) => boolean,
  timeoutMs = 120_000,
): Promise<Stood> {
  let last: Stood | undefined;
  try {
    return await waitFor(
      `${ns}/app: ${what}`,
      async () => {
        const s: Stood = {
          release: await getRelease(env.client, ns, 'app'),
          verification: (await getInventory(env.client, ns, 'app'))?.verification,
        };
        last = s;
        return ok(s) ? s : false;
      },
      { timeoutMs, intervalMs: 250 },
    );
  } catch (err) {
    const where = {
      rollout: last?.release?.status?.rollout,
      verified: verified(last?.release),
      verification: last?.verification,
    };
    throw new Error(`${errorMessage(err)}\nwhere it stood: ${JSON.stringify(where)}\n${env.logs()}`, {
      cause: err,
    });
  }
}

/** Several more reconciles, then: still Progressing on `revision`, nothing rolled back. */
async function stillHeld(ns: string, revision: string, tag: string): Promise<void> {
  await env.manager.moreReconciles(3);
  const r = await getRelease(env.client, ns, 'app');
  assert.equal(r?.status?.rollout?.state, 'Progressing', JSON.stringify(r?.status?.rollout));
  assert.equal(r?.status?.rollout?.revision, revision);
  assert.equal(await liveTag(env.client, ns, 'web'), tag);
}

/** Rolls v1 out with `check` (soak 5s, interval 1s); resolves once its verification holds it, inconclusive. */
async function heldInconclusive(
  ns: string,
  repo: Fixture,
  check: VerificationCheck,
): Promise<{ readonly sha: string; readonly held: Stood }> {
  const sha = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(release(ns, repo, { soak: '5s', interval: '1s', checks: [check] }));
  const held = await until(
    ns,
    'Verified=False VerificationInconclusive',
    ({ release: r }) =>
      r?.status?.rollout?.revision === sha && verified(r)?.reason === 'VerificationInconclusive',
  );
  return { sha, held };
}

test('a web check passes its soak; a render that makes it answer a failing value is rolled back', async () => {
  const ns = 'vc-web';
  const repo = await scenario(ns);
  // The answer follows the render's own ConfigMap, read as a workload would read it.
  const sim = await startTrafficSim({
    source: { kind: 'configMap', client: new KubeClient(env.cp.kubeConfig), namespace: ns, name: 'traffic' },
  });
  cleanups.push(() => sim.stop());
  const web = await jsonServer(() => ({ data: { errorRate: sim.settings().errorRate } }));
  const url = `${web.url}/health`;

  const sha1 = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(
    release(ns, repo, {
      soak: '8s',
      interval: '1s',
      checks: [
        {
          name: 'web-errors',
          web: { url, jsonPath: '{$.data.errorRate}', timeout: '3s' },
          successCondition: 'result <= 0.05',
          failureCondition: 'result > 0.05',
        },
      ],
    }),
  );
  const r1 = await rolloutOf(ns, 'Succeeded(R1) after its soak', reached('Succeeded', sha1));
  assert.equal(verified(r1)?.status, 'True', JSON.stringify(verified(r1)));
  const v1 = (await getInventory(env.client, ns, 'app'))?.verification;
  assert.equal(v1?.renderRef, r1.status?.rollout?.renderRef);
  assert.equal(v1?.phase, 'Passed');
  const c1 = v1?.checks?.find((c) => c.name === 'web-errors');
  assert.equal(c1?.provider, 'web');
  assert.equal(c1?.query, url);
  assert.ok((c1?.successful ?? 0) >= 2 && c1?.failed === 0, JSON.stringify(c1));
  assert.ok(web.requests() >= 2, `the web check called the server: ${web.requests()}`);

  // R2: Ready as ever, but its ConfigMap makes the server answer 0.3.
  const sha2 = await repo.commit(trafficApp('v2', '0.3'));
  const { message: msg } = await rolledBack(ns, sha2, 'RolledBack(R2) by the web check');
  assert.match(msg, /web-errors: 0\.3 /, msg);
  assert.ok(msg.includes(`url: ${url}`), msg);
  assert.match(msg, /result > 0\.05/, msg);
  await waitFor('R1 live again, its ConfigMap too', async () => {
    const cm = await liveConfigMap(env.client, ns, 'traffic');
    return (await liveTag(env.client, ns, 'web')) === 'v1' && cm?.data?.errorRate === '0';
  });
});

/** A template file of src/verify/argo/testdata (copied unchanged from the argo-rollouts docs), its header line dropped. */
async function argoDocTemplate(file: string): Promise<string> {
  const text = await readFile(new URL(`../../src/verify/argo/testdata/${file}`, import.meta.url), 'utf8');
  return text.replace(/^#.*\n/, '');
}

/** `text` with `from` replaced; fails unless it occurs exactly `times` times (the copy is what we think). */
function replaced(text: string, from: string, to: string, times: number): string {
  const parts = text.split(from);
  assert.equal(parts.length - 1, times, `${JSON.stringify(from)} in the template`);
  return parts.join(to);
}

async function createYaml(ns: string, yaml: string): Promise<void> {
  const obj = parse(yaml) as { apiVersion: string; kind: string; metadata: Record<string, unknown> };
  await env.client.create({ ...obj, metadata: { ...obj.metadata, namespace: ns } });
}

test('an AnalysisTemplate from the argo-rollouts docs passes; one with a datadog provider holds, naming it', async () => {
  const ns = 'vc-argo';
  const repo = await scenario(ns);
  // docs/analysis/prometheus.md's template, byte for byte but one change: its address
  // (http://prometheus.example.com:9090 → the test's Prometheus). The traffic simulator exports Istio's
  // istio_requests_total, so the query runs as written; its X-Scope-OrgID header is sent (this
  // Prometheus has no tenants and ignores it), and its timeout of 40 s and interval of 5m stay.
  const template = replaced(
    await argoDocTemplate('prometheus-success-rate.yaml'),
    'http://prometheus.example.com:9090',
    prom.url,
    1,
  );
  await createYaml(ns, template);
  // The query answers before the rollout, so the soak's one measurement (interval 5m) reads a value.
  const service = promSim.istioService;
  const query = `sum(irate(istio_requests_total{reporter="source",destination_service=~"${service}",response_code!~"5.*"}[5m])) / sum(irate(istio_requests_total{reporter="source",destination_service=~"${service}"}[5m]))`;
  await waitFor(
    'Prometheus to answer the success rate',
    async () => (await prom.query(query))[0]?.value === 1,
    {
      timeoutMs: 60_000,
    },
  );

  const sha1 = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(byTemplate(ns, repo, 'success-rate', promSim.istioService));
  const r1 = await rolloutOf(ns, 'Succeeded(R1) by the AnalysisTemplate', reached('Succeeded', sha1));
  assert.equal(verified(r1)?.status, 'True', JSON.stringify(verified(r1)));
  const c1 = (await getInventory(env.client, ns, 'app'))?.verification?.checks?.find(
    (c) => c.name === 'success-rate',
  );
  assert.equal(c1?.phase, 'Passed', JSON.stringify(c1));
  assert.equal(c1?.provider, 'prometheus');
  assert.ok(
    c1?.query?.includes(`destination_service=~"${promSim.istioService}",response_code!~"5.*"`),
    c1?.query,
  );
  assert.ok((c1?.successful ?? 0) >= 1 && c1?.failed === 0, JSON.stringify(c1));

  // docs/analysis/datadog.md's template, unchanged: convoy reads no datadog provider.
  const dns = 'vc-datadog';
  const drepo = await scenario(dns);
  await createYaml(dns, await argoDocTemplate('datadog-error-rate.yaml'));
  const dsha = await drepo.commit(trafficApp('v1', '0'));
  await env.client.create(byTemplate(dns, drepo, 'loq-error-rate', 'web'));
  const held = await until(dns, 'Verified=False naming the datadog template', ({ release: r }) => {
    const v = verified(r);
    return (
      r?.status?.rollout?.revision === dsha &&
      v !== undefined &&
      v.status !== 'True' &&
      /provider datadog/.test(v.message ?? '')
    );
  });
  const v = verified(held.release);
  assert.equal(v?.status, 'False', JSON.stringify(v));
  const m = v?.message ?? '';
  assert.match(m, /AnalysisTemplate loq-error-rate/, m);
  assert.match(m, /metric error-rate/, m);
  assert.match(m, /spec\.verification\.templateRefs\[0\]/, m);
  assert.match(m, /provider datadog is not supported/, m);
  assert.equal(held.verification?.reason, 'InvalidVerification');
  // The Event follows the status write: waited for, not read once.
  await waitFor(
    'an Event naming the template',
    async () => {
      const ev = await events(env.client, dns, 'app');
      if (ev.some((e) => /loq-error-rate/.test(e.message ?? ''))) return true;
      throw new Error(`Events: ${JSON.stringify(ev.map((e) => [e.reason, e.message]))}`);
    },
    { timeoutMs: 30_000 },
  );
  await stillHeld(dns, dsha, 'v1');
});

test('a bearer token Secret in another namespace is not read: held, naming the Secret, its value nowhere', async () => {
  const ns = 'vc-tenant';
  const repo = await scenario(ns);
  await env.namespace('vc-other');
  const token = `tok-${Math.random().toString(36).slice(2)}-never-shown`;
  await env.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: 'vc-other', name: 'prom-token' },
    stringData: { token },
  } as never);

  const { sha: sha1, held } = await heldInconclusive(ns, repo, {
    name: 'error-rate',
    prometheus: {
      address: prom.url,
      query: 'sum(rate(http_requests_total{code="500"}[4s]))',
      timeout: '3s',
      bearerTokenSecretRef: { name: 'prom-token', key: 'token' },
    },
    successCondition: 'result[0] <= 0.05',
    inconclusiveLimit: 1,
  });
  const m = verified(held.release)?.message ?? '';
  assert.match(m, /error-rate/, m);
  assert.match(m, /Secret prom-token/, m);
  const check = held.verification?.checks?.find((c) => c.name === 'error-rate');
  assert.equal(check?.successful, 0, JSON.stringify(check));
  assert.ok((check?.inconclusive ?? 0) >= 2, JSON.stringify(check));
  await stillHeld(ns, sha1, 'v1');

  const everywhere = {
    release: JSON.stringify(await getRelease(env.client, ns, 'app')),
    inventory: JSON.stringify(await getInventory(env.client, ns, 'app')),
    events: JSON.stringify(await env.client.list({ apiVersion: 'v1', kind: 'Event', namespace: ns })),
    observerLog: env.observer.log(),
    managerLog: env.manager.log(),
  };
  for (const [where, text] of Object.entries(everywhere)) {
    assert.ok(text.length > 0, `${where} was read`);
    assert.ok(!text.includes(token), `the Secret's value appears in the ${where}`);
  }
});

test('a Prometheus that accepts and never answers: each measurement an Error at the timeout, held, no rollback', async () => {
  const ns = 'vc-hang';
  const repo = await scenario(ns);
  const open = new Set<Socket>();
  let accepted = 0;
  const hanging = createTcpServer((socket) => {
    accepted++;
    open.add(socket);
    // Reads the request (a paused socket would never see the client close) and never answers.
    socket.resume();
    socket.on('error', () => socket.destroy());
    socket.on('close', () => open.delete(socket));
  });
  const address = await listen(hanging);
  cleanups.push(async () => {
    for (const s of open) s.destroy();
    await close(hanging);
  });

  const { sha: sha1, held } = await heldInconclusive(ns, repo, {
    name: 'error-rate',
    prometheus: { address, query: 'sum(rate(http_requests_total[4s]))', timeout: '2s' },
    successCondition: 'result[0] >= 0',
    failureLimit: 0,
    inconclusiveLimit: 2,
  });
  const check = held.verification?.checks?.find((c) => c.name === 'error-rate');
  const ms = check?.measurements ?? [];
  assert.ok(ms.length >= 3, JSON.stringify(check));
  for (const m of ms) {
    assert.equal(m.phase, 'Error', JSON.stringify(m));
    assert.match(m.message ?? '', /did not answer within 2 s/, JSON.stringify(m));
  }
  // Each call waits out its 2 s, then the next comes an interval later: never closer than the timeout.
  for (let i = 1; i < ms.length; i++) {
    const gap = Date.parse(ms[i]?.at ?? '') - Date.parse(ms[i - 1]?.at ?? '');
    assert.ok(gap >= 2000, `measurements ${i - 1} and ${i} are ${gap} ms apart: ${JSON.stringify(ms)}`);
  }
  assert.equal(check?.failed, 0);
  assert.match(verified(held.release)?.message ?? '', /did not answer within 2 s/);
  await stillHeld(ns, sha1, 'v1');
  // The calls given up were closed, not left open: at most the one in flight is.
  assert.ok(accepted >= 3, `connections: ${accepted}`);
  assert.ok(open.size <= 1, `${open.size} of ${accepted} connections still open`);
});

test('the observer killed mid-soak: Pending past the soak, no rollback; back, the soak resumes and succeeds', async () => {
  const ns = 'vc-observer';
  const repo = await scenario(ns);
  const web = await jsonServer(() => ({ data: { errorRate: 0 } }));
  const soakMs = 10_000;

  const sha1 = await repo.commit(trafficApp('v1', '0'));
  await env.client.create(
    release(ns, repo, {
      soak: `${soakMs / 1000}s`,
      interval: '1s',
      checks: [
        {
          name: 'web-errors',
          web: { url: `${web.url}/health`, jsonPath: '{$.data.errorRate}', timeout: '3s' },
          successCondition: 'result <= 0.05',
        },
      ],
    }),
  );
  const soaking = await until(ns, 'R1 soaking with a good measurement', ({ release: r, verification: v }) => {
    return (
      r?.status?.rollout?.revision === sha1 &&
      r.status.rollout.state === 'Progressing' &&
      v?.renderRef === r.status.rollout.renderRef &&
      v.phase === 'Running' &&
      (v.checks?.[0]?.successful ?? 0) >= 1
    );
  });
  assert.equal(await env.observer.kill(), 'SIGKILL');
  const soakEnd = Date.parse(soaking.verification?.startedAt ?? '') + soakMs;
  await waitFor('the observer Lease to expire', async () => !(await env.observerLive()), {
    timeoutMs: 30_000,
  });
  await waitFor('the soak to have ended', async () => Date.now() > soakEnd + 1_000, {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  await stillHeld(ns, sha1, 'v1');
  const away = await until(
    ns,
    'the rollout Pending with the observer away',
    ({ release: r }) => r?.status?.rollout?.state === 'Progressing',
  );
  assert.notEqual(verified(away.release)?.status, 'True', JSON.stringify(verified(away.release)));
  assert.equal(away.verification?.phase, 'Running', JSON.stringify(away.verification));
  assert.ok(!(await env.observerLive()), 'the observer was away the whole time');

  const restartedAt = Date.now();
  await env.restartObserver();
  const ok = await rolloutOf(ns, 'Succeeded(R1) once the observer is back', reached('Succeeded', sha1));
  assert.equal(verified(ok)?.status, 'True', JSON.stringify(verified(ok)));
  const v = (await getInventory(env.client, ns, 'app'))?.verification;
  assert.equal(v?.phase, 'Passed');
  assert.equal(v?.startedAt, soaking.verification?.startedAt, 'the same soak resumed, not a new one');
  const after = (v?.checks?.[0]?.measurements ?? []).filter(
    (m) => Date.parse(m.at) >= Math.floor(restartedAt / 1000) * 1000,
  );
  assert.ok(after.length >= 1 && after.every((m) => m.phase === 'Successful'), JSON.stringify(v?.checks));
});
