// npm run bench:cli — start-up cost of every convoy command as a user runs it (bin/convoy): CPU seconds
// (user + system) and maximum resident memory, measured by /usr/bin/time, the median and the maximum of
// BENCH_RUNS runs (default 5), against a local control plane and OCI registry. The commands are the CLI
// registry's (bench/cli-plan.ts): reads against the Release `web` (a status, an inventory with a hook, a
// stored render), writes against the bench's own Release `ops`, a ReleaseSet for fleet; dev and ui are
// measured by --help only, and the table says so. The budget of get, status and help is 0.15 CPU-s and
// 80 MiB; the bench exits 1 when one is over or a real invocation fails (exit 2).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_VERSION, FIELD_MANAGERS } from '../src/api/constants.ts';
import type { Release, ReleaseInventory, ReleaseSet } from '../src/api/types.ts';
import { shortRef } from '../src/cli/format.ts';
import { COMMANDS } from '../src/cli/registry.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient } from '../src/kube/client.ts';
import { renderRef } from '../src/render/canonical.ts';
import { SecretRenderStore } from '../src/store/secrets.ts';
import type { Render } from '../src/store/types.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { startRegistry } from '../src/testenv/registry.ts';
import { installCrds } from '../test/support/crds.ts';
import { BENCH_TABLE, benchPlan } from './cli-plan.ts';

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
  /** stderr without the timing line: what a failed command said. */
  readonly stderr: string;
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
  const stderr = (r.stderr ?? '')
    .split('\n')
    .filter((l) => !l.startsWith('@@'))
    .join('\n');
  return { cpu: (u ?? 0) + (s ?? 0), rssMiB: (m ?? 0) / 1024, code: r.status, stderr };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const configMap = (name: string, a: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'bench' },
  data: { a },
});

const cp = await startControlPlane({});
const registry = await startRegistry({});
const work = await mkdtemp(join(tmpdir(), 'convoy-bench-cli-'));
try {
  await installCrds(cp.kubeConfig);
  const client = new KubeClient(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const render: Render = { hooks: [], objects: [configMap('cfg', '1')] };
  const ref = renderRef(render);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const inline = { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n' } };
  const controller = { fieldManager: FIELD_MANAGERS.controller, force: true };
  const conditions = [
    { type: 'Ready', status: 'True', reason: 'Synced', message: 'applied', lastTransitionTime: now },
    {
      type: 'Healthy',
      status: 'True',
      reason: 'Healthy',
      message: '1 object healthy',
      lastTransitionTime: now,
    },
  ];
  const writeStatus = (name: string, status: Release['status']) =>
    applyObject(
      client,
      { apiVersion: API_VERSION, kind: 'Release', metadata: { name, namespace: 'bench' }, status } as Release,
      { ...controller, subresource: 'status' },
    );
  /** A status whose one render `applied` was applied, succeeded and is healthy; `current` is the newest. */
  const appliedStatus = (applied: { renderRef: string; revision: string }, current = applied) =>
    ({
      observedGeneration: 1,
      currentRender: current,
      lastAttempted: { ...applied, time: now, applied: true },
      lastSuccessful: { ...applied, time: now },
      lastHealthy: { ...applied, time: now },
      history: [{ ...applied, appliedAt: now }],
      conditions,
    }) as Release['status'];

  // web: what the read commands look at.
  await client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'web', namespace: 'bench' },
    spec: { source: inline },
  } as Release);
  await writeStatus('web', appliedStatus({ renderRef: ref, revision: 'r1' }));
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
      hooks: [
        {
          name: 'migrate',
          phase: 'PreSync',
          kind: 'Job',
          renderRef: ref,
          workloadName: 'web-migrate-r1',
          namespace: 'bench',
          createdAt: now,
          state: 'Succeeded',
          finishedAt: now,
        },
      ],
    },
    controller,
  );
  const store = new SecretRenderStore(client);
  await store.put('bench', 'web', ref, render, { revision: 'r1' });

  // ops: the write commands' own Release, in Manual mode (approve), running r1 while r2 is current
  // (rollback has a render to go back to), both renders stored (pin checks the store).
  await client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'ops', namespace: 'bench' },
    spec: { source: inline, syncPolicy: { mode: 'Manual' } },
  } as Release);
  const render2: Render = { hooks: [], objects: [configMap('cfg', '2')] };
  const ref2 = renderRef(render2);
  const r1 = { renderRef: ref, revision: 'r1' };
  const r2 = { renderRef: ref2, revision: 'r2' };
  await writeStatus('ops', appliedStatus(r1, r2));
  await store.put('bench', 'ops', ref, render, { revision: 'r1' });
  await store.put('bench', 'ops', ref2, render2, { revision: 'r2' });

  // web, the ReleaseSet of fleet status / fleet watch: its train done (watch ends at its first event).
  const set = await client.create<ReleaseSet>({
    apiVersion: API_VERSION,
    kind: 'ReleaseSet',
    metadata: { name: 'web', namespace: 'bench' },
    spec: { template: { spec: { source: inline } }, local: {} },
  } as ReleaseSet);
  await applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'ReleaseSet',
      metadata: { name: 'web', namespace: 'bench' },
      status: {
        observedGeneration: set.metadata.generation ?? 1,
        revision: 'f1',
        train: { revision: 'f1', id: 'f1', state: 'Succeeded', wave: 0, startedAt: now, finishedAt: now },
        clusters: [{ cluster: 'local', wave: 0, release: 'web', revision: 'f1', state: 'Succeeded' }],
        summary: { total: 1, succeeded: 1, progressing: 0, waiting: 0, failed: 0, paused: 0, ready: '1/1' },
        message: 'revision f1 on every cluster',
      },
    } as unknown as ReleaseSet,
    { ...controller, subresource: 'status' },
  );

  await mkdir(join(work, 'deploy'));
  await writeFile(join(work, 'deploy', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
  await copyFile(
    fileURLToPath(new URL('../examples/import/argocd-applications.yaml', import.meta.url)),
    join(work, 'argocd-applications.yaml'),
  );
  const oci = `oci://${registry.host}/bench/web:1`;
  const fill = (args: readonly string[]) =>
    args.map((a) => a.replace('{dir}', work).replace('{ref1}', shortRef(ref)).replace('{oci}', oci));
  const shown = (args: readonly string[]) =>
    `convoy ${args.join(' ')}`.replace(work, 'DIR').replace(registry.host, 'HOST');

  const env = { ...process.env, KUBECONFIG: cp.kubeconfigPath, NO_COLOR: '1' };
  const rows: string[] = [];
  const row = (label: string, cpu: number, rss: number, rest: string) =>
    rows.push(
      `${label.padEnd(60)} ${cpu.toFixed(2).padStart(5)} CPU-s  ${rss.toFixed(0).padStart(4)} MiB  ${rest}`.trimEnd(),
    );
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
  const loadBefore = loadavg();
  for (const [label, args] of floors) {
    measure(args, env, process.execPath);
    const samples = Array.from({ length: RUNS }, () => measure(args, env, process.execPath));
    row(label, median(samples.map((s) => s.cpu)), Math.max(...samples.map((s) => s.rssMiB)), '(floor)');
  }
  let over = 0;
  let failed = 0;
  for (const run of benchPlan(COMMANDS, BENCH_TABLE)) {
    const args = fill(run.args);
    const sample = () => {
      if (run.reset !== undefined) {
        const r = measure(fill(run.reset), env);
        if (r.code !== 0) throw new Error(`${shown(run.reset)} (reset): exit ${r.code}: ${r.stderr.trim()}`);
      }
      return measure(args, env);
    };
    sample(); // warm the compile cache and the page cache
    const samples = Array.from({ length: RUNS }, sample);
    const cpu = median(samples.map((s) => s.cpu));
    const rss = Math.max(...samples.map((s) => s.rssMiB));
    const budgeted = BUDGET.commands.includes(run.command) && !args.includes('--help');
    const ok = !budgeted || (cpu <= BUDGET.cpu && rss <= BUDGET.rssMiB);
    if (!ok) over++;
    // exit 2 is an error: the figures would be those of an error path, not of the command's work
    const error = samples.find((s) => s.code === 2);
    if (error !== undefined) failed++;
    const notes = [
      `exit ${samples[0]?.code}`,
      ...(budgeted ? [ok ? 'within budget' : 'OVER BUDGET'] : []),
      ...(run.note === undefined ? [] : [`(--help only: ${run.note})`]),
      ...(error === undefined ? [] : [`ERROR: ${error.stderr.trim().split('\n')[0]}`]),
    ];
    row(shown(args), cpu, rss, notes.join('  '));
  }
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    [
      `convoy start-up, median CPU-s of ${RUNS} runs and max RSS (budget for get/status/help: ${BUDGET.cpu} CPU-s, ${BUDGET.rssMiB} MiB)`,
      `load average ${load(loadBefore)} at the start, ${load(loadavg())} at the end (${cpus().length} CPUs)`,
      ...rows,
      '',
    ].join('\n'),
  );
  process.exitCode = over > 0 || failed > 0 ? 1 : 0;
} finally {
  await cp.stop();
  await registry.stop();
  await rm(work, { recursive: true, force: true });
}
