// `convoy dev`, the first thing a new user runs: a local control plane with simulated nodes, convoy's
// CRDs and default rules, controller-manager and observer as child processes, a test Prometheus scraping a
// traffic simulator (dev-metrics.ts), and an example app rolled out from a local git repository, shown
// live; then what to try next. It runs until Ctrl-C, SIGTERM, SIGHUP or its output closing (dev-stop.ts)
// and then stops every process it started and removes every directory it made.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { parseArgs } from 'node:util';
import { API_VERSION } from '../api/constants.ts';
import type { Release } from '../api/types.ts';
import { KubeClient } from '../kube/client.ts';
import { readInventoryParts } from '../kube/inventory-read.ts';
import { errorMessage } from '../lib/errors.ts';
import { ensureBinaries } from '../testenv/build.ts';
import { type ControlPlane, registerApiService, startControlPlane } from '../testenv/index.ts';
import { ensureTools } from '../testenv/tools.ts';
import type { ProcessName } from './bundled.ts';
import {
  BROKEN_PATCH,
  breakCommand,
  ERROR_RATE_PATCH,
  EXAMPLE_APP,
  EXAMPLE_SOAK,
  errorRateCommand,
  exampleRelease,
  git,
  initExampleRepo,
  TOOL_EXAMPLES,
  TRAFFIC_CONFIGMAP,
  toolExampleRelease,
} from './dev-example.ts';
import { installConvoy } from './dev-install.ts';
import { type DevMetrics, startDevMetrics } from './dev-metrics.ts';
import { type ConvoyProcess, startConvoyProcess } from './dev-processes.ts';
import { watchStop } from './dev-stop.ts';
import { outcome, progress, progressLine } from './watch-view.ts';

export interface DevOptions {
  readonly nodes: number;
  readonly out: NodeJS.WritableStream;
  /** Watched for errors like `out` (a closed pipe stops `convoy dev`); never written to. */
  readonly err?: NodeJS.WritableStream;
  /** Create and follow the example Release (default true; `--no-example` turns it off). */
  readonly example?: boolean;
}

const LEASE_NAMESPACE = 'convoy-system';
const RELEASE_NAMESPACE = 'default';
const POLL_MS = 1000;
const API_GROUP_PATH = '/apis/api.convoy.kumodo.io/v1alpha1';

/** `convoy dev [--nodes N] [--no-example]`; returns the exit code. */
export async function devMain(
  argv: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
) {
  let values: { nodes: string; example: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { nodes: { type: 'string', default: '3' }, example: { type: 'boolean', default: true } },
      allowNegative: true,
    }));
  } catch (e) {
    err.write(`convoy dev: ${errorMessage(e)}\n`);
    return 2;
  }
  const nodes = Number.parseInt(values.nodes, 10);
  if (!Number.isInteger(nodes) || nodes < 1 || String(nodes) !== values.nodes) {
    err.write(`convoy dev: --nodes must be a positive integer, got "${values.nodes}"\n`);
    return 2;
  }
  await runDev({ nodes, out, err, example: values.example });
  return 0;
}

/** The PEM of the certificate a TLS server presents (self-signed: it is its own CA). */
function servingCertPem(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.destroy();
      const b64 = (raw.toString('base64').match(/.{1,64}/g) ?? []).join('\n');
      resolve(`-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`);
    });
    socket.once('error', reject);
  });
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function runDev(opts: DevOptions): Promise<void> {
  const { out } = opts;
  const stop = watchStop(opts.err === undefined || opts.err === out ? [out] : [out, opts.err]);
  const say = stop.say;
  // The control plane's child processes are unref'd (tests must be able to exit); this timer keeps
  // `convoy dev` alive until the user stops it.
  const keepAlive = setInterval(() => {}, 1 << 30);
  let cp: ControlPlane | undefined;
  let dir: string | undefined;
  const procs: ConvoyProcess[] = [];
  let ui: { readonly url: string; close(): Promise<void> } | undefined;
  let metrics: DevMetrics | undefined;
  try {
    say(`convoy dev: starting a local control plane with ${opts.nodes} simulated nodes …`);
    const bin = await ensureBinaries({ log: say });
    const tools = await ensureTools({ log: say });
    // aggregation: kube-apiserver proxies /apis/api.convoy.kumodo.io to convoy's HTTP API, as installed.
    // registry: a plain-HTTP OCI registry on loopback for `convoy push artifact` and spec.source.oci.
    cp = await startControlPlane({ workloads: true, nodes: opts.nodes, aggregation: true, registry: true });
    dir = await mkdtemp(join(tmpdir(), 'convoy-dev-'));
    say(`convoy dev: dev dir ${dir}`);
    say(`convoy dev: control plane up in ${cp.dir}`);
    for (const p of cp.processes()) say(`convoy dev: started ${p.name} (pid ${p.pid})`);
    if (cp.registry)
      say(`convoy dev: started an OCI registry at ${cp.registry.endpoint} (pid ${cp.registry.pid})`);
    if (stop.signal.aborted) return;

    const admin = new KubeClient(cp.kubeConfig);
    // Prometheus starts (1-2 s) while the CRDs are installed; both are waited for, so a failure of one
    // never leaves the other running unseen.
    const [installed, started] = await Promise.allSettled([
      installConvoy(admin, LEASE_NAMESPACE),
      startDevMetrics({
        client: admin,
        namespace: EXAMPLE_APP,
        log: (line) => say(`convoy dev: ${line}`),
      }),
    ]);
    if (started.status === 'fulfilled') metrics = started.value;
    if (installed.status === 'rejected') throw installed.reason;
    if (started.status === 'rejected') throw started.reason;
    say('convoy dev: installed the CRDs (deploy/crds) and the default health rules');
    const { prometheus, sim } = started.value;
    say(
      `convoy dev: started Prometheus at ${prometheus.url} (pid ${prometheus.pid}), scraping a traffic simulator at ${sim.url}/metrics whose error rate ConfigMap ${EXAMPLE_APP}/${TRAFFIC_CONFIGMAP} sets`,
    );
    if (stop.signal.aborted) return;
    const logs = join(dir, 'logs');
    await mkdir(logs);
    const common = [
      '--kubeconfig',
      cp.kubeconfigPath,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--lease-namespace',
      LEASE_NAMESPACE,
    ];
    const start = async (name: ProcessName, args: string[], readyText: string) => {
      const logPath = join(logs, `${name}.log`);
      const p = await startConvoyProcess({ name, args, readyText, logPath });
      procs.push(p);
      say(`convoy dev: started convoy ${name} (pid ${p.pid}, log ${logPath})`);
      return p;
    };
    // The HTTP API on a free loopback port with a self-signed certificate, registered as the APIService
    // api.convoy.kumodo.io/v1alpha1 (trusting exactly that certificate), so `kubectl get --raw
    // /apis/api.convoy.kumodo.io/…` and the observer's wake-ups (POST /sync) go through kube-apiserver.
    const manager = await start(
      'controller-manager',
      [
        ...common,
        '--git-cache-dir',
        join(dir, 'git-cache'),
        '--allow-file-urls',
        // A local playground for one person: cluster mode, so a Release needs no ServiceAccount
        // (docs/tenancy.md#convoy-dev).
        '--tenancy',
        'cluster',
        '--kustomize-binary',
        join(tools, 'kustomize'),
        '--helm-binary',
        join(tools, 'helm'),
        '--identity',
        'dev',
        '--api-bind-address',
        '127.0.0.1:0',
        '--api-dev-self-signed',
      ],
      'convoy-controller-manager ready',
    );
    const apiUrl = /"apiUrl":"(https:\/\/[^"]+)"/.exec(manager.readyLog)?.[1];
    if (apiUrl === undefined) throw new Error(`controller-manager logged no apiUrl (${manager.logPath})`);
    await registerApiService(cp.kubeConfig, {
      port: Number(new URL(apiUrl).port),
      caPem: await servingCertPem(apiUrl),
    });
    say(`convoy dev: registered the HTTP API (${apiUrl}) as ${API_GROUP_PATH} in kube-apiserver`);
    if (stop.signal.aborted) return;
    await start('observer', [...common, '--identity', 'dev'], 'convoy-observer ready');
    // The web UI of `convoy ui`, with the admin kubeconfig (docs/ui.md).
    const { makeCtx } = await import('./context.ts');
    const { serveUi } = await import('./commands/ui.ts');
    const uiCtx = await makeCtx(
      { kubeconfig: cp.kubeconfigPath, allNamespaces: true, output: 'table' },
      {
        out,
        err: out,
        get stdin() {
          return process.stdin;
        },
        env: process.env,
        now: () => new Date(),
      },
    );
    ui = await serveUi(uiCtx, 0);
    say(`convoy dev: the web UI (open it in a browser on this machine): ${ui.url}`);

    const kubectl = join(bin, 'kubectl');
    const repo = join(dir, EXAMPLE_APP);
    const env = [
      `  export KUBECONFIG=${cp.kubeconfigPath}`,
      `  alias kubectl=${kubectl}   # a kubectl of the same version, built with the control plane`,
      ...(opts.example === false ? [] : [`  export REPO=${repo}   # the example's git repository`]),
      `  export PROMETHEUS=${prometheus.url}   # the test Prometheus, scraping the traffic simulator`,
      ...(cp.registry
        ? [
            `  export REGISTRY=oci://${cp.registry.host}   # an OCI registry on plain HTTP: helm push --plain-http, convoy push --insecure, source.oci.insecure: true`,
          ]
        : []),
    ];
    if (opts.example === false) {
      say(
        [
          '',
          'convoy dev: the local control plane is up, with convoy running in it.',
          '',
          'Try it:',
          ...env,
          '  kubectl get nodes',
          `  kubectl apply -f examples/resources/release-inline.yaml && kubectl get releases -w`,
          '',
          `Logs: tail -f ${logs}/*.log`,
          'Press Ctrl-C to stop everything.',
          '',
        ].join('\n'),
      );
      await new Promise((resolve) => {
        if (stop.signal.aborted) resolve(undefined);
        stop.signal.addEventListener('abort', resolve, { once: true });
      });
      return;
    }

    const url = await initExampleRepo(repo);
    const commit = (await git(repo, 'rev-parse', '--short', 'HEAD')).trim();
    say(
      `convoy dev: example repository ${repo} (branch main, commit ${commit}), from examples/${EXAMPLE_APP}/`,
    );
    await admin.create(
      exampleRelease({
        name: EXAMPLE_APP,
        namespace: RELEASE_NAMESPACE,
        url,
        targetNamespace: EXAMPLE_APP,
        prometheus: prometheus.url,
      }),
    );
    const toolReleases: string[] = [];
    for (const app of TOOL_EXAMPLES) {
      const appRepo = join(dir, app);
      const release = await toolExampleRelease(app, await initExampleRepo(appRepo, app), RELEASE_NAMESPACE);
      await admin.create(release);
      toolReleases.push(
        `  ${release.metadata.name} (examples/${app}/, ${release.spec.render?.type}; repository ${appRepo})`,
      );
    }
    say(`convoy dev: created Release ${RELEASE_NAMESPACE}/${EXAMPLE_APP}; its rollout:`);
    let tipsShown = false;
    const showTips = () => {
      say(
        [
          '',
          'Try it:',
          ...env,
          '  kubectl get releases                     # the rollout state, as convoy sees it',
          `  kubectl get all -n ${EXAMPLE_APP}`,
          `  kubectl get --raw ${API_GROUP_PATH}/namespaces/${RELEASE_NAMESPACE}/releases/${EXAMPLE_APP}/health`,
          '',
          'Break the app with a commit (its pods never become Ready), and watch convoy roll it back',
          'to the last healthy render once failurePolicy.deadline (1m) has passed:',
          `  ${breakCommand(repo)}`,
          '  kubectl get releases -w                  # convoy picks the commit up within 10 s',
          `  npm run convoy -- watch ${EXAMPLE_APP}          # once REVISION shows it: exits 1 on RolledBack`,
          `(${BROKEN_PATCH} is in the repository; this terminal keeps showing the rollout too.)`,
          `Then fix it: git -C ${repo} revert --no-edit HEAD`,
          '',
          `Once it is Succeeded again (after its ${EXAMPLE_SOAK} verification soak), keep every pod Ready but`,
          `raise the error rate the ConfigMap ${TRAFFIC_CONFIGMAP} sets to 30 %, and watch the metric roll it back`,
          'within the soak, reason VerificationFailed:',
          `  ${errorRateCommand(repo)}`,
          `  npm run convoy -- status ${EXAMPLE_APP}          # its Verification section: the check's last value`,
          `(${ERROR_RATE_PATCH} is in the repository; the web UI's Release page draws the check's measurements.)`,
          '',
          'Two more Releases render their examples with the real tools (docs/helm.md, docs/kustomize.md):',
          ...toolReleases,
          '',
          `Logs: tail -f ${logs}/*.log`,
          `The web UI: ${ui?.url ?? '-'}`,
          'Press Ctrl-C to stop everything.',
          '',
        ].join('\n'),
      );
      tipsShown = true;
    };
    await follow(admin, stop.signal, say, (summary, ok) => {
      say(`convoy dev: ${summary}`);
      if (!tipsShown) {
        if (!ok) say('convoy dev: the example did not succeed; see the logs above.');
        showTips();
      }
    });
  } finally {
    clearInterval(keepAlive);
    const why = stop.reason();
    say(`\nconvoy dev: stopping${why === undefined ? '' : ` (${why})`} …`);
    await ui?.close();
    for (const p of [...procs].reverse()) await p.stop();
    await metrics?.stop();
    await cp?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    stop.dispose();
    say('convoy dev: stopped; nothing left running.');
  }
}

/** While a rollout's checks measure it, its line says so: the soak can take a while and changes no count. */
function soakNote(release: Release): string {
  if (release.status?.rollout?.state !== 'Progressing') return '';
  const verified = release.status.conditions?.find((c) => c.type === 'Verified');
  return verified?.reason === 'Verifying' ? ` · Verifying (soak ${release.spec.verification?.soak})` : '';
}

/**
 * Polls the example Release and its inventory until `signal` aborts: a line whenever the rollout's
 * progress changes, and `onDone` once per render whose rollout ends (Succeeded, Failed, RolledBack).
 */
async function follow(
  client: KubeClient,
  signal: AbortSignal,
  say: (line: string) => void,
  onDone: (summary: string, ok: boolean) => void,
): Promise<void> {
  let lastLine = '';
  let lastDone = '';
  const ref = (kind: string) => ({
    apiVersion: API_VERSION,
    kind,
    namespace: RELEASE_NAMESPACE,
    name: EXAMPLE_APP,
  });
  while (!signal.aborted) {
    try {
      const release = await client.get<Release>(ref('Release'));
      if (release !== undefined) {
        const inventory = (
          await readInventoryParts(client, { namespace: RELEASE_NAMESPACE, name: EXAMPLE_APP })
        )?.inventory;
        const line = progressLine(progress(release, inventory), false) + soakNote(release);
        if (line !== lastLine) say(`  ${new Date().toISOString().slice(11, 19)} ${line}`);
        lastLine = line;
        const o = outcome(release);
        const key = o.kind === 'done' ? o.summary : '';
        if (o.kind === 'done' && key !== lastDone) onDone(o.summary, o.exitCode === 0);
        lastDone = key;
      }
    } catch (err) {
      // The API can be briefly unavailable (e.g. while stopping); the next poll tries again.
      const line = `  (reading the Release failed: ${err instanceof Error ? err.message : String(err)})`;
      if (line !== lastLine) say(line);
      lastLine = line;
    }
    await pause(POLL_MS, signal);
  }
}
