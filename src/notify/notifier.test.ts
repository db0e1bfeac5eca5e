// The delivery path with an injected sender (no network): requests per provider type, order within a
// lane, retries until the provider answers, refusal, the bounded queue, duplicate suppression, the
// ledger a restart starts from, and provider health.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Alert, Provider, Release } from '../api/types.ts';
import { factsOf } from './facts.ts';
import { type Delivery, Notifier, type NotifierDeps } from './notifier.ts';
import { buildRequest, type HttpRequest, repositoryOf, SIGNATURE_HEADER, sign } from './providers.ts';
import { DeliveryQueue, type Final } from './queue.ts';
import { classifyStatus, networkFailure, type SendResult } from './send.ts';

const R1 = `sha256:${'1'.repeat(64)}`;
const R2 = `sha256:${'2'.repeat(64)}`;
const SHA = 'a'.repeat(40);

function release(name: string, rollout: NonNullable<Release['status']>['rollout']): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace: 'ns', name, uid: `uid-${name}` },
    spec: { source: { git: { url: 'https://github.com/acme/web.git', ref: { branch: 'main' } } } },
    status: { rollout, lastHealthy: { renderRef: R1, revision: SHA, time: '2026-01-01T00:00:00Z' } },
  };
}
const alert = (spec: Partial<Alert['spec']> = {}, status?: Alert['status']): Alert => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Alert',
  metadata: { namespace: 'ns', name: 'a', uid: 'a1' },
  spec: { providerRef: { name: 'p' }, ...spec },
  ...(status === undefined ? {} : { status }),
});
const provider = (spec: Provider['spec']): Provider => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Provider',
  metadata: { namespace: 'ns', name: 'p' },
  spec,
});

/** A promise the test resolves with open(): holds a send in flight until then. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

function harness(opts: {
  alerts?: Alert[];
  provider?: Provider;
  answers?: SendResult[];
  /** Each send waits for this before it answers. */
  held?: Promise<void>;
  deps?: Partial<NotifierDeps>;
}) {
  const sent: HttpRequest[] = [];
  const answers = [...(opts.answers ?? [])];
  const n = new Notifier({
    alerts: () => opts.alerts ?? [alert()],
    provider: () =>
      opts.provider ?? provider({ type: 'generic', address: 'http://hook.test/x', secretRef: { name: 's' } }),
    secret: async () => ({ token: 'k3y' }),
    sender: async (req) => {
      sent.push(req);
      if (opts.held !== undefined) await opts.held;
      return answers.shift() ?? { kind: 'delivered', status: 200 };
    },
    queue: { baseDelayMs: 1, maxDelayMs: 5 },
    ...opts.deps,
  });
  return { n, sent };
}

test('generic: JSON body with render ids and reason, HMAC-SHA256 signature over the body', async () => {
  const { n, sent } = harness({});
  n.observe(
    release('web', { state: 'RolledBack', renderRef: R2, reason: 'DeadlineExceeded', revision: SHA }),
  );
  await n.idle(5000);
  assert.equal(sent.length, 1);
  const req = sent[0] as HttpRequest;
  const body = JSON.parse(req.body) as Record<string, unknown>;
  assert.equal(body.event, 'RolledBack');
  assert.equal(body.renderRef, R2);
  assert.equal(body.targetRenderRef, R1);
  assert.equal(body.reason, 'DeadlineExceeded');
  assert.equal(req.headers[SIGNATURE_HEADER], `sha256=${sign('k3y', req.body)}`);
});

test('github and gitlab: commit status per Release, pending/success/failure; nothing for a sync failure', () => {
  const f = (state: 'Progressing' | 'Succeeded' | 'RolledBack') =>
    factsOf(release('web', { state, renderRef: R2, revision: SHA }))[0];
  const ref = { namespace: 'ns', name: 'web', gitUrl: 'git@github.com:acme/web.git' };
  const gh = (state: 'Progressing' | 'Succeeded' | 'RolledBack') => {
    const fact = f(state);
    assert.ok(fact);
    const b = buildRequest({ type: 'github', secretRef: { name: 's' } }, { token: 't' }, ref, fact, 'now');
    assert.equal(b.kind, 'request');
    return b.kind === 'request' ? b.request : undefined;
  };
  const p = gh('Progressing');
  assert.equal(p?.url, `https://api.github.com/repos/acme/web/statuses/${SHA}`);
  assert.equal(p?.headers.Authorization, 'Bearer t');
  assert.deepEqual(
    ['Progressing', 'Succeeded', 'RolledBack'].map(
      (s) => JSON.parse(gh(s as 'Progressing')?.body ?? '{}').state,
    ),
    ['pending', 'success', 'failure'],
  );
  assert.equal(JSON.parse(p?.body ?? '{}').context, 'convoy/ns/web');
  const fact = f('RolledBack');
  assert.ok(fact);
  const gl = buildRequest(
    {
      type: 'gitlab',
      address: 'http://127.0.0.1:9/api/v4/',
      repository: 'grp/sub/web',
      secretRef: { name: 's' },
    },
    { token: 't' },
    ref,
    fact,
    'now',
  );
  assert.equal(
    gl.kind === 'request' && gl.request.url,
    `http://127.0.0.1:9/api/v4/projects/grp%2Fsub%2Fweb/statuses/${SHA}`,
  );
  assert.equal(gl.kind === 'request' && JSON.parse(gl.request.body).state, 'failed');
  const sync = { ...fact, event: 'SyncFailed' as const, class: 'sync' as const };
  assert.equal(buildRequest({ type: 'github' }, { token: 't' }, ref, sync, 'now').kind, 'notApplicable');
  assert.equal(buildRequest({ type: 'github' }, {}, ref, fact, 'now').kind, 'invalid');
  assert.deepEqual(
    [
      'https://github.com/acme/web.git',
      'ssh://git@gitlab.com/g/s/p',
      'git@github.com:acme/web.git',
      'https://x/one',
      'not a url',
    ].map(repositoryOf),
    ['acme/web', 'g/s/p', 'acme/web', undefined, undefined],
  );
});

test('a provider that is down gets the message once it answers; its health shows the failure meanwhile', async () => {
  const healthSeen: string[] = [];
  let h: ReturnType<typeof harness> | undefined;
  h = harness({
    answers: [
      { kind: 'retry', why: 'no answer (ECONNREFUSED)' },
      { kind: 'retry', why: 'HTTP 503' },
    ],
    deps: {
      onProviderHealth: (k) => healthSeen.push(`${k}:${h?.n.health(k)?.kind}`),
    },
  });
  h.n.observe(release('web', { state: 'Succeeded', renderRef: R2, revision: SHA }));
  await h.n.idle(5000);
  assert.equal(h.sent.length, 3);
  assert.deepEqual(healthSeen, ['ns/p:failing', 'ns/p:failing', 'ns/p:ok']);
  assert.equal(h.n.ledger.entries('ns/a').length, 1);
});

test('duplicates: the same status observed again sends nothing; a restart seeded from status.notified neither', async () => {
  const { n, sent } = harness({});
  const r = release('web', { state: 'Succeeded', renderRef: R2, revision: SHA });
  n.observe(r);
  n.observe(r);
  await n.idle(5000);
  n.observe(r);
  await n.idle(5000);
  assert.equal(sent.length, 1);
  const notified = n.ledger.entries('ns/a');
  // A new process whose Alert status carries the ledger: nothing again; a later transition: sent.
  const again = harness({ alerts: [alert({}, { notified })] });
  again.n.observe(r);
  await again.n.idle(5000);
  assert.equal(again.sent.length, 0);
  again.n.observe(release('web', { state: 'Progressing', renderRef: R1, revision: SHA }));
  await again.n.idle(5000);
  assert.equal(again.sent.length, 1);
});

test('observed but not delivered before a stop: planned again by the next process', async () => {
  const { n } = harness({
    answers: Array.from({ length: 100 }, () => ({ kind: 'retry', why: 'HTTP 503' }) as SendResult),
  });
  const r = release('web', { state: 'RolledBack', renderRef: R2, revision: SHA });
  n.observe(r);
  await new Promise((res) => setTimeout(res, 20));
  n.stop();
  assert.deepEqual(n.ledger.entries('ns/a'), []);
  const next = harness({ alerts: [alert({}, { notified: n.ledger.entries('ns/a') })] });
  assert.equal(next.n.observe(r), 1);
});

test('a send in flight when the queue stops ends with its own outcome: delivered is recorded, not sent again', async () => {
  const { open: answer, opened } = gate();
  const { n, sent } = harness({ held: opened, answers: [{ kind: 'delivered', status: 200 }] });
  const r = release('web', { state: 'RolledBack', renderRef: R2, revision: SHA });
  assert.equal(n.observe(r), 1);
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(sent.length, 1, 'in flight');
  n.stop();
  answer();
  await n.idle(5000);
  assert.deepEqual(
    n.ledger.entries('ns/a').map((e) => e.event),
    ['rollout'],
  );
  // The replica taking over starts from that ledger and sends nothing.
  const next = harness({ alerts: [alert({}, { notified: n.ledger.entries('ns/a') })] });
  assert.equal(next.n.observe(r), 0);
});

test('ledger: a replica that gains shards takes what the status says of slots it did not deliver itself', () => {
  const { n } = harness({});
  const stale = alert({}, { notified: [] });
  n.ledger.seed('ns/a', stale);
  n.ledger.delivered('ns/a', 'mine', 'rollout', 'k-mine-2', '2026-01-01T00:00:02Z');
  n.ledger.reseed(
    'ns/a',
    alert(
      {},
      {
        notified: [
          { release: 'other', event: 'rollout', key: 'k-other', time: '2026-01-01T00:00:01Z' },
          { release: 'mine', event: 'rollout', key: 'k-mine-1', time: '2026-01-01T00:00:01Z' },
        ],
      },
    ),
  );
  assert.equal(n.ledger.lastPlanned('ns/a', 'other', 'rollout'), 'k-other');
  assert.equal(n.ledger.lastDelivered('ns/a', 'mine', 'rollout'), 'k-mine-2');
  // A recreated Alert (another uid) starts from its own status.
  n.ledger.reseed('ns/a', { ...alert({}, { notified: [] }), metadata: { ...stale.metadata, uid: 'a2' } });
  assert.equal(n.ledger.lastPlanned('ns/a', 'other', 'rollout'), undefined);
});

test('a refused message (4xx) is not retried and shows as failing; observe never waits for a send', async () => {
  const { open: answer, opened } = gate();
  const { n, sent } = harness({ held: opened, answers: [{ kind: 'refused', why: 'HTTP 404' }] });
  const t0 = performance.now();
  assert.equal(n.observe(release('web', { state: 'Failed', renderRef: R2 })), 1);
  assert.ok(performance.now() - t0 < 50);
  answer();
  await n.idle(5000);
  assert.equal(sent.length, 1);
  assert.equal(n.health('ns/p')?.kind, 'failing');
});

test('queue: one lane in order even when its head is retried; other lanes pass; bounded; expiry', async () => {
  const order: string[] = [];
  const finals: string[] = [];
  let failFirst = 2;
  const q = new DeliveryQueue<string>({
    send: async (v) => {
      if (v === 'a1' && failFirst-- > 0) return { kind: 'retry', why: 'down' };
      order.push(v);
      return { kind: 'delivered' };
    },
    onFinal: (v, f: Final) => finals.push(`${v}:${f}`),
    baseDelayMs: 5,
    maxDelayMs: 10,
    maxItems: 3,
  });
  assert.ok(q.push('a', 'a1'));
  assert.ok(q.push('a', 'a2'));
  assert.ok(q.push('b', 'b1'));
  assert.equal(q.push('c', 'c1'), false, 'full');
  await q.idle(5000);
  assert.deepEqual(order, ['b1', 'a1', 'a2']);

  const expired: string[] = [];
  let t = 0;
  const q2 = new DeliveryQueue<string>({
    send: async () => {
      t += 1000;
      return { kind: 'retry', why: 'HTTP 503' };
    },
    onFinal: (v, f, why) => expired.push(`${v}:${f}:${why}`),
    baseDelayMs: 1,
    maxDelayMs: 2,
    retryWindowMs: 3000,
    now: () => t,
  });
  q2.push('x', 'x1');
  await q2.idle(5000);
  assert.deepEqual(expired, ['x1:expired:HTTP 503']);
});

test('send: HTTP answers and network failures classified without quoting the request', () => {
  assert.deepEqual(
    [200, 204, 301, 400, 401, 404, 408, 429, 500, 503].map((s) => classifyStatus(s).kind),
    [
      'delivered',
      'delivered',
      'refused',
      'refused',
      'refused',
      'refused',
      'retry',
      'retry',
      'retry',
      'retry',
    ],
  );
  const secretUrl = 'https://hooks.slack.test/services/T0/B0/s3cr3t';
  const results = [
    networkFailure(
      Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED', message: secretUrl } }),
    ),
    networkFailure(new DOMException('The operation timed out', 'TimeoutError')),
    networkFailure(new TypeError(`Failed to parse URL from ${secretUrl}`)),
  ];
  assert.deepEqual(
    results.map((r) => r.kind),
    ['retry', 'retry', 'refused'],
  );
  assert.ok(results.every((r) => !JSON.stringify(r).includes('s3cr3t')));
});

test('deliveries carry the provider key and render for the metric and status', async () => {
  const seen: Delivery[] = [];
  const { n } = harness({
    deps: {
      onFailure: (d) => seen.push(d),
      sender: async () => ({ kind: 'refused', why: 'HTTP 400' }),
    },
  });
  n.observe(release('web', { state: 'Failed', renderRef: R2 }));
  await n.idle(5000);
  assert.equal(seen[0]?.providerKey, 'ns/p');
  assert.equal(seen[0]?.fact.renderRef, R2);
});
