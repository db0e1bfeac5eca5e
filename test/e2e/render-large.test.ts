// A Helm chart whose render is ~50 MB (100 ConfigMaps of 1,000 keys of 500 bytes, under helm's 64 MiB
// output cap), end to end with both convoy processes. It used to block the controller-manager's event
// loop for seconds (YAML parsing, then hashing and storing the render): /healthz unanswered, shard
// Leases lapsing, every other Release waiting. Now (docs/design.md#large-renders): while the controller
// renders, parses, hashes, applies and stores it, /healthz — polled all along — answers every time
// within 1 s, and a small Release created once helm has printed the render (so while it is being
// parsed) is Ready before the large one. helm runs through a wrapper that notes when it ends.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { errorMessage } from '../../src/lib/errors.ts';
import { makeRepo } from '../../src/render/git/testsupport.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { largeChartFiles } from '../support/large-chart.ts';
import { probePortOf } from '../support/metrics.ts';
import { cm, deleteReleaseAndWait, getRelease, gitRelease, isReady, releaseOf } from '../support/release.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const OBJECTS = 100;
const KEYS = 1000;
const BYTES = 500;
/** The longest /healthz may take at any time during the render. */
const HEALTHZ_MAX_MS = 1000;
/** Where the controller-manager's RSS must come back to once the Release is deleted: its level before × this. */
const RSS_RETURN = 1.2;

const WRAPPER_DIR = join(tmpdir(), `convoy-render-large-e2e-${process.pid}`);
const HELM = join(WRAPPER_DIR, 'helm');
const RUNS = join(WRAPPER_DIR, 'runs');

const env = convoySystemPerFile({
  identity: 'render-large',
  nodes: 1,
  managerArgs: ['--helm-binary', HELM],
  setUp: async () => {
    const tools = await ensureTools();
    await mkdir(WRAPPER_DIR, { recursive: true });
    await writeFile(RUNS, '');
    // PATH is empty in helm's environment: only builtins and absolute paths.
    await writeFile(
      HELM,
      `#!/bin/sh\n${join(tools, 'helm')} "$@"\nrc=$?\necho "end $2" >> ${RUNS}\nexit $rc\n`,
    );
    await chmod(HELM, 0o755);
  },
});

/** The controller-manager's resident memory now, in MiB (a diagnostic: nothing asserts on it). */
async function managerRssMib(): Promise<number> {
  const status = await readFile(`/proc/${env.manager.proc.pid}/status`, 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * Polls /healthz one request after another (100 ms apart) until stopped; the slowest answer, and the
 * controller-manager's peak RSS seen meanwhile.
 */
function pollHealthz(port: number) {
  let stopped = false;
  let slowest = 0;
  let polls = 0;
  let peakRss = 0;
  const failures: string[] = [];
  const running = (async () => {
    while (!stopped) {
      const start = performance.now();
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(60_000) });
        await res.text();
        if (res.status !== 200) failures.push(`status ${res.status}`);
      } catch (err) {
        failures.push(errorMessage(err));
      }
      slowest = Math.max(slowest, performance.now() - start);
      polls++;
      peakRss = Math.max(peakRss, await managerRssMib());
      // The pace of the probe, not a wait for anything.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return { slowest, polls, failures, peakRss };
    },
  };
}

test('a ~50 MB Helm render leaves /healthz answered within 1 s and another Release syncing', async () => {
  const { client } = env;
  const ns = 'render-large';
  await env.namespace(ns);
  const repo = await makeRepo('render-large');
  const port = probePortOf(env.manager.log(), 'convoy-controller-manager ready');
  const rssBefore = await managerRssMib();
  const probe = pollHealthz(port);
  try {
    await repo.commit(largeChartFiles(OBJECTS, KEYS, BYTES, 'app'));
    const started = performance.now();
    await client.create(
      gitRelease(ns, 'large', repo, {
        render: { type: 'Helm', targetNamespace: ns },
        syncPolicy: { interval: '1h' },
      }),
    );
    await waitFor(
      'helm rendered the large chart',
      async () => (await readFile(RUNS, 'utf8')).split('\n').includes('end large'),
      { timeoutMs: 180_000, intervalMs: 100 },
    );
    const helmDone = performance.now();
    await client.create(
      releaseOf(ns, 'small', {
        source: { inline: { manifests: cm('small', { a: '1' }) } },
        render: { targetNamespace: ns },
      }),
    );
    await env.waitForRelease(ns, 'small', 'Ready', isReady, 120_000);
    const smallReady = performance.now();
    const large = await getRelease(client, ns, 'large');
    assert.ok(large !== undefined);
    assert.equal(
      isReady(large),
      false,
      'the small Release was Ready only after the large one: it waited for the large render',
    );
    await env.waitForRelease(ns, 'large', 'Ready', isReady, 180_000);
    const largeReady = performance.now();
    const rssReady = await managerRssMib();
    const live = await client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: `large-${OBJECTS - 1}`,
    });
    assert.equal(Object.keys(live?.data ?? {}).length, KEYS);
    assert.equal(live?.data?.k0, 'x'.repeat(BYTES));
    await deleteReleaseAndWait(client, ns, 'large', { timeoutMs: 180_000 });
    const deleted = performance.now();
    const { slowest, polls, failures, peakRss } = await probe.stop();
    const rssDeleted = await managerRssMib();
    const rssLimit = Math.round(rssBefore * RSS_RETURN);
    // The process gives memory back on a timer (src/runtime/memory-return.ts): wait for it.
    const rssGone = await waitFor(
      `controller-manager RSS back within ${rssLimit} MiB`,
      async () => {
        const rss = await managerRssMib();
        return rss <= rssLimit && rss;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    ).catch((err: unknown) => err);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    process.stdout.write(
      `# large render: helm ${s(helmDone - started)}, Ready after ${s(largeReady - started)}, deleted after ${s(deleted - largeReady)} more; ` +
        `small Ready ${s(smallReady - helmDone)} after helm ended; /healthz ${polls} polls, slowest ${slowest.toFixed(0)} ms; ` +
        `controller-manager RSS ${rssBefore} MiB before, ${peakRss} MiB peak, ${rssReady} MiB once Ready, ${rssDeleted} MiB once deleted, ${typeof rssGone === 'number' ? rssGone : await managerRssMib()} MiB after\n`,
    );
    assert.deepEqual(failures, []);
    assert.equal(
      typeof rssGone,
      'number',
      `${errorMessage(rssGone)}: its memory did not come back\n${env.logs()}`,
    );
    assert.ok(
      slowest < HEALTHZ_MAX_MS,
      `/healthz took ${slowest.toFixed(0)} ms during the render or the deletion\n${env.logs()}`,
    );
  } finally {
    await probe.stop();
    await repo.cleanup();
    await rm(WRAPPER_DIR, { recursive: true, force: true });
  }
});
