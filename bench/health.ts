// npm run bench:health — one health pass over a Release of 500 objects on the local control plane:
// wall time and API reads of the first pass (assess + write 500 entries) and of steady passes, with one
// GET per object and with one LIST per kind and namespace; then the RSS of a real convoy-observer
// process working both Releases. Also prints the rule engine's throughput from bench/health-rules.ts.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_VERSION, FIELD_MANAGERS, GROUP, LABEL_RELEASE, VERSION } from '../src/api/constants.ts';
import type { ReleaseInventory } from '../src/api/types.ts';
import { processScript } from '../src/cli/bundled.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient } from '../src/kube/client.ts';
import { HealthController, installDefaultRules } from '../src/observer/health/loop/index.ts';
import { Harness, type KubeObject, newLogger } from '../src/runtime/index.ts';
import { PROCESS_NODE_FLAGS } from '../src/runtime/node-flags.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { freePort } from '../src/testenv/ports.ts';
import { installCrds } from '../test/support/crds.ts';
import { applyControllerInventory, releaseOf } from '../test/support/release.ts';
import { waitFor } from '../test/support/wait.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const N = Number(process.env.BENCH_OBJECTS ?? 500);
const NS = 'bench';
const REF = `sha256:${'a'.repeat(64)}`;
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;

const cp = await startControlPlane({});
try {
  const client = new KubeClient(cp.kubeConfig);
  await installCrds(cp.kubeConfig);
  for (const name of [NS, 'convoy-system']) {
    await applyObject(
      client,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { fieldManager: 'bench' },
    );
  }
  await installDefaultRules(client);

  const setup = async (release: string) => {
    const names = Array.from({ length: N }, (_, i) => `${release}-${i}`);
    for (let i = 0; i < names.length; i += 25) {
      await Promise.all(
        names.slice(i, i + 25).map((name) =>
          applyObject(
            client,
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, namespace: NS, labels: { [LABEL_RELEASE]: `${NS}.${release}` } },
              data: { k: 'v' },
            },
            { fieldManager: FIELD_MANAGERS.deployer, force: true },
          ),
        ),
      );
    }
    await applyObject(
      client,
      releaseOf(NS, release, {
        source: { inline: { manifests: '# bench' } },
        healthAssessment: {
          globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
        },
      }),
      { fieldManager: FIELD_MANAGERS.controller, force: true },
    );
    await applyControllerInventory(
      client,
      NS,
      release,
      names.map((name) => ({
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        namespace: NS,
        name,
        wave: 0,
        renderRef: REF,
      })),
    );
  };

  const measure = async (label: string, release: string, listThreshold: number) => {
    const harness = new Harness({
      name: `bench-${label}`,
      kubeConfig: cp.kubeConfig,
      log: newLogger('bench', undefined, 'warn'),
    });
    const hc = new HealthController(harness, { client, listThreshold });
    await harness.start();
    // Passes run only when this bench calls syncHandler: no worker takes keys.
    await hc.controller.drain();
    await setup(release);
    const inventories = harness.informer<ReleaseInventory & KubeObject>({
      path: `/apis/${GROUP}/${VERSION}/releaseinventories`,
    });
    const key = `${NS}/${release}`;
    const cachedRv = async () => {
      const live = await client.get<ReleaseInventory>({
        apiVersion: API_VERSION,
        kind: 'ReleaseInventory',
        namespace: NS,
        name: release,
      });
      return inventories.cache.get(key)?.metadata.resourceVersion === live?.metadata.resourceVersion;
    };
    const pass = async (what: string) => {
      await waitFor('the inventory cached', cachedRv);
      const reads = hc.stats.reads;
      const writes = hc.stats.writes;
      const t0 = performance.now();
      await hc.syncHandler(key, harness.log);
      const ms = performance.now() - t0;
      console.log(
        `${label.padEnd(12)} ${what.padEnd(12)} ${ms.toFixed(0).padStart(6)} ms ${String(hc.stats.reads - reads).padStart(5)} reads ${String(hc.stats.writes - writes).padStart(3)} writes`,
      );
    };
    await pass('first pass');
    await pass('steady pass');
    await pass('steady pass');
    await harness.stop();
  };

  console.log(`## one health pass over a Release of ${N} ConfigMaps (default rules)\n`);
  await measure('GET/object', 'get', 0);
  await measure('LIST/kind', 'list', 20);

  // RSS of the real process, after it has assessed both Releases (and re-assessed on informer resync).
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...PROCESS_NODE_FLAGS,
      `${ROOT}${processScript(ROOT, 'observer')}`,
      '--kubeconfig',
      cp.kubeconfigPath,
      '--metrics-bind-address',
      `127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  try {
    const metric = async (name: string) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return text
        .split('\n')
        .filter((l) => l.startsWith(name))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    };
    await waitFor(
      'the observer ran two passes',
      async () => (await metric('convoy_health_passes_total')) >= 2,
      { timeoutMs: 60_000 },
    );
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
    console.log(`\nconvoy-observer RSS with 2 Releases x ${N} objects: ${mb(rss)} (peak ${mb(hwm)})`);
  } finally {
    child.kill('SIGTERM');
  }
} finally {
  await cp.stop();
}

console.log('\n## rule engine (bench/health-rules.ts)\n');
const rules = spawnSync(process.execPath, [fileURLToPath(new URL('./health-rules.ts', import.meta.url))], {
  encoding: 'utf8',
});
for (const line of (rules.stdout ?? '').split('\n')) if (line.includes('objects/s')) console.log(line);
if (rules.status !== 0) console.log(`bench/health-rules.ts failed: ${rules.stderr}`);
