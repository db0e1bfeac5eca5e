// npm run bench:notify — the delivery path for BENCH_RELEASES (default 1,000) Releases changing at once:
// the Notifier (planning against the ledger, the bounded queue, request building with an HMAC signature,
// fetch with its timeout) posting to a generic webhook on a local HTTP server that answers 200 (or, with
// BENCH_DELAY_MS, after that long). Each round moves every Release to a new rollout state at the same
// moment; printed: how long the observe() calls took (what a reconcile pays), messages per second until
// the last one arrived, and the delay from a transition handed over to its message received (p50, p99,
// max). No control plane: the Kubernetes side (informers, status writes) is not in these figures.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Alert, Provider, Release, RolloutState } from '../src/api/types.ts';
import { Notifier } from '../src/notify/notifier.ts';
import { fetchSender } from '../src/notify/send.ts';

const N = Number(process.env.BENCH_RELEASES ?? 1000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 0);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const NS = 'bench';

const received: { at: number; name: string }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { release: { name: string } };
    const answer = () => {
      received.push({ at: performance.now(), name: body.release.name });
      res.writeHead(200);
      res.end();
    };
    if (DELAY_MS > 0) setTimeout(answer, DELAY_MS);
    else answer();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const alert: Alert = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Alert',
  metadata: { namespace: NS, name: 'all', uid: 'alert-uid' },
  spec: { providerRef: { name: 'hook' } },
};
const provider: Provider = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Provider',
  metadata: { namespace: NS, name: 'hook' },
  spec: { type: 'generic', address: url, secretRef: { name: 'hmac' } },
};
const notifier = new Notifier({
  alerts: () => [alert],
  provider: () => provider,
  secret: async () => ({ token: 'bench-hmac-key' }),
  sender: fetchSender,
  now: () => performance.timeOrigin + performance.now(),
  queue: { concurrency: CONCURRENCY, maxItems: Math.max(10_000, N * 2) },
});

const ref = (round: number, i: number) => `sha256:${(round * 100_000 + i).toString(16).padStart(64, '0')}`;
function release(i: number, state: RolloutState, round: number): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace: NS, name: `app-${i}`, uid: `uid-${i}` },
    spec: { source: { git: { url: 'https://github.com/acme/app.git', ref: { branch: 'main' } } } },
    status: {
      rollout: {
        state,
        renderRef: ref(round, i),
        revision: 'a'.repeat(40),
        reason: state === 'RolledBack' ? 'DeadlineExceeded' : state,
        startedAt: new Date().toISOString(),
      },
      lastHealthy: { renderRef: ref(0, i), revision: 'b'.repeat(40), time: new Date().toISOString() },
    },
  };
}

const pct = (xs: number[], p: number) =>
  xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const ms = (x: number) => `${x.toFixed(1)} ms`;

const rounds: RolloutState[] = ['Progressing', 'Succeeded', 'Progressing', 'RolledBack'];
const rows: string[] = [];
for (const [round, state] of rounds.entries()) {
  received.length = 0;
  const releases = Array.from({ length: N }, (_, i) =>
    release(i, state, state === 'Succeeded' ? round - 1 : round),
  );
  const handed: number[] = new Array(N);
  const t0 = performance.now();
  let queued = 0;
  for (const [i, r] of releases.entries()) {
    handed[i] = performance.now();
    queued += notifier.observe(r);
  }
  const observeMs = performance.now() - t0;
  await notifier.idle(120_000);
  const last = received.reduce((m, r) => Math.max(m, r.at), t0);
  const delays = received.map((r) => r.at - (handed[Number(r.name.slice(4))] ?? t0)).sort((a, b) => a - b);
  const perSecond = received.length / ((last - t0) / 1000);
  rows.push(
    `round ${round + 1} (${state}): ${queued} queued, ${received.length} received; observe() ${ms(observeMs)} in all (${ms(observeMs / N)} each); ` +
      `${perSecond.toFixed(0)} messages/s; delay p50 ${ms(pct(delays, 50))}, p99 ${ms(pct(delays, 99))}, max ${ms(delays.at(-1) ?? Number.NaN)}`,
  );
  // The same statuses again: duplicates suppressed, nothing sent.
  const again = releases.reduce((n, r) => n + notifier.observe(r), 0);
  if (again !== 0) throw new Error(`round ${round + 1}: ${again} duplicates queued`);
}
notifier.stop();
server.close();
process.stdout.write(
  `bench:notify — ${N} Releases changing at once, one Alert, a generic webhook (HMAC) on loopback, ${CONCURRENCY} sends in flight${DELAY_MS > 0 ? `, provider answers after ${DELAY_MS} ms` : ''}\n${rows.join('\n')}\n`,
);
