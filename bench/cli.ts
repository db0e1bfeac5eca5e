// npm run bench:cli — start-up cost of every convoy command as a user runs it (bin/convoy): CPU seconds
// (user + system) and maximum resident memory, measured by /usr/bin/time, the median and the maximum of
// BENCH_RUNS runs (default 5), against a local control plane holding one Release with a status, an
// inventory and a stored render. The budget of get, status and help is 0.15 CPU-s and 80 MiB.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_VERSION, FIELD_MANAGERS } from '../src/api/constants.ts';
import type { Release, ReleaseInventory } from '../src/api/types.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient } from '../src/kube/client.ts';
import { renderRef } from '../src/render/canonical.ts';
import { SecretRenderStore } from '../src/store/secrets.ts';
import type { Render } from '../src/store/types.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TIME = '/usr/bin/time';
const LAUNCHER = fileURLToPath(new URL('../bin/convoy', import.meta.url));
const BUDGET = { cpu: 0.15, rssMiB: 80, commands: ['help', 'get', 'status'] };

if (!existsSync(TIME)) {
  process.stderr.write(`bench:cli needs ${TIME} (apt-get install time)\n`);
  process.exit(2);
}

interface Sample {
  readonly cpu: number;
  readonly rssMiB: number;
  readonly code: number | null;
}

function measure(args: readonly string[], env: NodeJS.ProcessEnv, program = LAUNCHER): Sample {
  const r = spawnSync(TIME, ['-f', '@@%U %S %M', program, ...args], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = (r.stderr ?? '').split('\n').find((l) => l.startsWith('@@'));
  if (line === undefined) throw new Error(`convoy ${args.join(' ')}: no timing (${r.stderr})`);
  const [u, s, m] = line.slice(2).split(' ').map(Number);
  return { cpu: (u ?? 0) + (s ?? 0), rssMiB: (m ?? 0) / 1024, code: r.status };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const cp = await startControlPlane({});
const work = await mkdtemp(join(tmpdir(), 'convoy-bench-cli-'));
try {
  await installCrds(cp.kubeConfig);
  const client = new KubeClient(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const render: Render = {
    hooks: [],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: 'bench' },
        data: { a: '1' },
      },
    ],
  };
  const ref = renderRef(render);
  await client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'web', namespace: 'bench' },
    spec: { source: { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n' } } },
  } as Release);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const pointer = { renderRef: ref, revision: 'r1' };
  await applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name: 'web', namespace: 'bench' },
      status: {
        observedGeneration: 1,
        currentRender: pointer,
        lastAttempted: { ...pointer, time: now, applied: true },
        lastSuccessful: { ...pointer, time: now },
        lastHealthy: { ...pointer, time: now },
        history: [{ ...pointer, appliedAt: now }],
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Synced', message: 'applied', lastTransitionTime: now },
          {
            type: 'Healthy',
            status: 'True',
            reason: 'Healthy',
            message: '1 object healthy',
            lastTransitionTime: now,
          },
        ],
      },
    } as unknown as Release,
    { fieldManager: FIELD_MANAGERS.controller, force: true, subresource: 'status' },
  );
  await applyObject<ReleaseInventory>(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'bench' },
      entries: [
        {
          group: '',
          version: 'v1',
          kind: 'ConfigMap',
          namespace: 'bench',
          name: 'cfg',
          renderRef: ref,
          wave: 0,
          state: 'Healthy',
          assessedRenderRef: ref,
        },
      ],
    },
    { fieldManager: FIELD_MANAGERS.controller, force: true },
  );
  await new SecretRenderStore(client).put('bench', 'web', ref, render, { revision: 'r1' });
  await writeFile(join(work, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
  const env = { ...process.env, KUBECONFIG: cp.kubeconfigPath, NO_COLOR: '1' };
  const commands: string[][] = [
    ['help'],
    ['get', '--help'],
    ['get', '-n', 'bench'],
    ['get', '-A'],
    ['status', 'web', '-n', 'bench'],
    ['health', 'web', '-n', 'bench'],
    ['history', 'web', '-n', 'bench'],
    ['watch', 'web', '-n', 'bench', '--timeout', '30s'],
    ['diff', 'web', '-n', 'bench'],
    ['render', work, '--ref-only'],
    ['rules', 'eval', '--rules', 'default', join(work, 'cm.yaml')],
  ];
  const rows: string[] = [];
  // What no command can beat on this machine right now: Node starting, and Node making one HTTPS
  // request to the same API server (the CLI's own cost is what a command takes beyond these).
  const server = cp.kubeConfig.getCurrentCluster()?.server ?? '';
  const floors: [string, string[]][] = [
    ['node -e 0 (Node alone)', ['-e', '0']],
    [
      'node: one HTTPS GET /livez (Node + TLS)',
      [
        '-e',
        `process.getBuiltinModule('node:https').get(${JSON.stringify(`${server}/livez`)}, { rejectUnauthorized: false }, (r) => r.resume())`,
      ],
    ],
  ];
  for (const [label, args] of floors) {
    measure(args, env, process.execPath);
    const samples = Array.from({ length: RUNS }, () => measure(args, env, process.execPath));
    rows.push(
      `${label.padEnd(58)} ${median(samples.map((s) => s.cpu))
        .toFixed(2)
        .padStart(5)} CPU-s  ${Math.max(...samples.map((s) => s.rssMiB))
        .toFixed(0)
        .padStart(4)} MiB  (floor)`,
    );
  }
  let over = 0;
  for (const args of commands) {
    measure(args, env); // warm the compile cache and the page cache
    const samples = Array.from({ length: RUNS }, () => measure(args, env));
    const cpu = median(samples.map((s) => s.cpu));
    const rss = Math.max(...samples.map((s) => s.rssMiB));
    const budgeted = BUDGET.commands.includes(args[0] ?? '') && args[1] !== '--help';
    const ok = !budgeted || (cpu <= BUDGET.cpu && rss <= BUDGET.rssMiB);
    if (!ok) over++;
    rows.push(
      `${`convoy ${args.join(' ').replace(work, 'DIR')}`.padEnd(58)} ${cpu.toFixed(2).padStart(5)} CPU-s  ${rss.toFixed(0).padStart(4)} MiB  exit ${samples[0]?.code}${budgeted ? (ok ? '  within budget' : '  OVER BUDGET') : ''}`,
    );
  }
  process.stdout.write(
    `convoy start-up, median CPU-s of ${RUNS} runs and max RSS (budget for get/status/help: ${BUDGET.cpu} CPU-s, ${BUDGET.rssMiB} MiB)\n${rows.join('\n')}\n`,
  );
  process.exitCode = over > 0 ? 1 : 0;
} finally {
  await cp.stop();
  await rm(work, { recursive: true, force: true });
}
