// The local control plane for tests and `convoy dev`: etcd + kube-apiserver on loopback
// ports in a fresh temp dir, and with `workloads` also kube-controller-manager,
// kube-scheduler and kwok with simulated nodes, so Deployments become Available and Jobs
// finish. Every wait polls a real readiness signal; nothing sleeps for a fixed time.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../lib/errors.ts';
import { ensureBinaries } from './build.ts';
import {
  apiServerArgs,
  controllerManagerArgs,
  etcdArgs,
  type FrontProxyFiles,
  kwokArgs,
  schedulerArgs,
} from './flags.ts';
import { writeFrontProxyCerts } from './frontproxy.ts';
import { type Endpoint, request } from './http.ts';
import { type ClusterCredentials, parseKubeconfig, renderKubeconfig } from './kubeconfig.ts';
import { type NodeLike, nodeManifest, nodeSchedulable } from './nodes.ts';
import { freePort, startOnFreePorts } from './ports.ts';
import { GuardedDir, logTail, type Proc, ProcessExitedError, spawnLogged, stopProc } from './proc.ts';
import { type RegistryOptions, startRegistry, type TestRegistry } from './registry.ts';
import { podLogLines, stagesYaml } from './stages.ts';
import { DEFAULT_STORAGE_CLASS, defaultStorageClass } from './storage.ts';

export {
  type ApiServiceRegistration,
  ApiServiceUnavailableError,
  registerApiService,
} from './aggregation.ts';
export { FRONT_PROXY_CLIENT_NAME } from './flags.ts';
export type { ClusterCredentials } from './kubeconfig.ts';
export { isAlive } from './proc.ts';
export {
  ensurePrometheus,
  PROMETHEUS_VERSION,
  type PrometheusOptions,
  PrometheusQueryError,
  PrometheusStartError,
  type PromSample,
  startPrometheus,
  type TestPrometheus,
} from './prometheus.ts';
export {
  type RegistryOptions,
  RegistryStartError,
  startRegistry,
  type TestRegistry,
} from './registry.ts';
export * from './stages.ts';
export { DEFAULT_STORAGE_CLASS } from './storage.ts';
export {
  DEFAULT_TRAFFIC,
  startTrafficSim,
  type TrafficSettings,
  type TrafficSim,
  type TrafficSimOptions,
  type TrafficSource,
} from './traffic-sim.ts';

export interface StartOptions {
  /** Also run kube-controller-manager, kube-scheduler and kwok with simulated nodes. */
  readonly workloads?: boolean;
  /** Simulated nodes when `workloads` (default 2). */
  readonly nodes?: number;
  /** A second kube-apiserver on the same etcd under another prefix: an independent cluster. */
  readonly secondCluster?: boolean;
  /**
   * More kube-apiservers on the same etcd, each under a prefix of its own (`/extra-<i>/registry`):
   * independent clusters for fleet tests (ControlPlane.extra, in order). No workloads run in them
   * unless `extraWorkloads`.
   */
  readonly extraClusters?: number;
  /**
   * With `workloads`: each extra cluster runs its own kube-controller-manager, kube-scheduler and kwok
   * with one simulated node, so Deployments there become Available as on the main cluster.
   */
  readonly extraWorkloads?: boolean;
  /**
   * Run the main kube-apiserver as an aggregation layer that can proxy to aggregated apiservers
   * (registerApiService): a front-proxy CA and client cert, the --requestheader-* and
   * --proxy-client-* flags, and a start that returns only once kube-apiserver has published
   * the requestheader settings in kube-system/extension-apiserver-authentication.
   */
  readonly aggregation?: boolean;
  /** Directory with the binaries; default: ensureBinaries() (builds them the first time). */
  readonly binDir?: string;
  /**
   * Gives up starting after this long (default 120 s: two cores shared with other tests); each
   * restartApiServer() gets as long again.
   */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
  /** The main kube-apiserver serves /debug/pprof (off by default: tests need no profiles). */
  readonly profiling?: boolean;
  /** Also start an OCI registry (registry.ts) on loopback; stop() stops it too. */
  readonly registry?: RegistryOptions | true;
}

export interface ClusterAccess extends ClusterCredentials {
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
}

export interface ProcessInfo {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
}

export interface ControlPlane extends ClusterAccess {
  readonly second?: ClusterAccess;
  /** With `extraClusters`: one access per extra kube-apiserver. */
  readonly extra: readonly ClusterAccess[];
  /** http://127.0.0.1:<port> */
  readonly etcdEndpoint: string;
  /** The temp dir holding data, certs, kubeconfigs and logs; removed by stop(). */
  readonly dir: string;
  readonly nodeNames: readonly string[];
  /**
   * With `workloads`: the file every container of every Pod logs (CRI format, kwok's ClusterLogs),
   * served through the pods/log API and followed: a line appended shows in a `follow` stream.
   */
  readonly podLogsFile?: string;
  /** With `aggregation`: PEM of the CA that signed kube-apiserver's front-proxy client cert. */
  readonly frontProxyCaPem?: string;
  /** With `registry`: the OCI registry started with it. */
  readonly registry?: TestRegistry;
  /** Processes currently running, the watchdog included. */
  processes(): readonly ProcessInfo[];
  /** Stops the main kube-apiserver and starts it again on the same port and etcd. */
  restartApiServer(): Promise<void>;
  /**
   * The two halves of restartApiServer, for a test that acts while the API server is away (e.g. records
   * an Event that must arrive later): stop it (the port refuses connections), then start it again on the
   * same port and etcd; startApiServer resolves once it is ready.
   */
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  /** Kills every process and removes the temp dir; safe to call twice. */
  stop(): Promise<void>;
}

export class ControlPlaneStartError extends Error {
  override name = 'ControlPlaneStartError';
}

const MAIN_PREFIX = '/registry';
// Not a prefix of MAIN_PREFIX nor the other way round, so neither apiserver sees the other's keys.
const SECOND_PREFIX = '/second/registry';
const DEFAULT_TIMEOUT_MS = 120_000;

/** Reads server, CA and admin token from a kubeconfig this module wrote. */
export async function readClusterCredentials(kubeconfigPath: string): Promise<ClusterCredentials> {
  return parseKubeconfig(await readFile(kubeconfigPath, 'utf8'));
}

let serviceAccountKey: string | undefined;
/** One RSA key per test process: generating it costs more than everything else it is used for. */
function serviceAccountKeyPem(): string {
  serviceAccountKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  return serviceAccountKey;
}

export async function startControlPlane(opts: StartOptions = {}): Promise<ControlPlane> {
  const bin = opts.binDir ?? (await ensureBinaries(opts.log ? { log: opts.log } : {}));
  const dir = await mkdtemp(join(tmpdir(), 'convoy-testenv-'));
  const started = Date.now();
  const env = new Env(bin, dir, started + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS), opts.log ?? (() => {}));
  let registry: TestRegistry | undefined;
  try {
    const [cp, reg] = await Promise.all([
      env.start(opts),
      opts.registry === undefined
        ? undefined
        : startRegistry({
            ...(opts.registry === true ? {} : opts.registry),
            ...(opts.log ? { log: opts.log } : {}),
          }).then((r) => {
            registry = r;
            return r;
          }),
    ]);
    opts.log?.(`testenv: control plane up at ${cp.server} in ${Date.now() - started} ms (${dir})`);
    if (reg === undefined) return cp;
    return {
      ...cp,
      registry: reg,
      stop: async () => {
        await Promise.all([cp.stop(), reg.stop()]);
      },
    };
  } catch (err) {
    await registry?.stop();
    await env.stop(process.env.CONVOY_TESTENV_KEEP === '1');
    if (err instanceof ControlPlaneStartError || err instanceof ProcessExitedError) throw err;
    throw new ControlPlaneStartError(`starting the control plane failed: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

interface ApiServer {
  proc: Proc;
  readonly args: readonly string[];
  readonly name: string;
  readonly endpoint: Endpoint;
}

const exitText = (p: Proc): string =>
  p.exit?.signal ? `on ${p.exit.signal}` : `with code ${p.exit?.code ?? '?'}`;

/** One control plane's processes and files; startControlPlane returns its public face. */
class Env {
  private readonly procs = new Set<Proc>();
  private readonly guard: GuardedDir;
  private readonly token = randomBytes(24).toString('hex');
  private stopping: Promise<void> | undefined;
  /** Set once start() returned: from then on an exit we did not ask for is worth a warning. */
  private started = false;
  /** Processes we are stopping on purpose (restart, retry). */
  private readonly expectedExits = new WeakSet<Proc>();

  private phase(what: string): void {
    this.logLine(`testenv: +${Date.now() - this.t0} ms ${what}`);
  }

  private readonly bin: string;
  readonly dir: string;
  private readonly deadline: number;

  private readonly t0 = Date.now();
  private readonly logLine: (line: string) => void;

  constructor(bin: string, dir: string, deadline: number, log: (line: string) => void) {
    this.logLine = log;
    this.bin = bin;
    this.dir = dir;
    this.deadline = deadline;
    this.guard = new GuardedDir(dir);
  }

  async start(opts: StartOptions): Promise<ControlPlane> {
    const logs = join(this.dir, 'logs');
    await mkdir(logs);
    const token = this.token;
    const tokenFile = join(this.dir, 'tokens.csv');
    await writeFile(tokenFile, `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
    const saKeyFile = join(this.dir, 'sa.key');
    await writeFile(saKeyFile, serviceAccountKeyPem(), { mode: 0o600 });

    // openssl runs while etcd starts: aggregation costs the start no time of its own here.
    const [etcdEndpoint, frontProxy] = await Promise.all([
      this.startEtcd(),
      opts.aggregation ? writeFrontProxyCerts(join(this.dir, 'front-proxy')) : undefined,
    ]);
    this.phase('etcd healthy');
    const apiServer = (name: string, prefix: string, proxy?: FrontProxyFiles) =>
      this.startApiServer(name, {
        etcdEndpoint,
        etcdPrefix: prefix,
        certDir: join(this.dir, name, 'certs'),
        tokenFile,
        serviceAccountKeyFile: saKeyFile,
        ...(proxy ? { frontProxy: proxy } : {}),
        ...(opts.profiling === true && name === 'kube-apiserver' ? { profiling: true } : {}),
      });
    const extraCount = opts.extraClusters ?? 0;
    const [main, second, ...extras] = await Promise.all([
      apiServer('kube-apiserver', MAIN_PREFIX, frontProxy),
      opts.secondCluster ? apiServer('kube-apiserver-second', SECOND_PREFIX) : undefined,
      ...Array.from({ length: extraCount }, (_, i) =>
        apiServer(`kube-apiserver-extra-${i}`, `/extra-${i}/registry`),
      ),
    ]);
    this.phase('kube-apiserver ready');
    const mainAccess = await this.writeAccess('main', main, token);
    if (frontProxy) {
      await this.waitRequestHeaderPublished(main.proc, { ...main.endpoint, caPem: mainAccess.caPem });
      this.phase('requestheader settings published');
    }
    const secondAccess = second ? await this.writeAccess('second', second, token) : undefined;
    const extra: ClusterAccess[] = [];
    for (const [i, api] of extras.entries()) {
      if (api !== undefined) extra.push(await this.writeAccess(`extra-${i}`, api, token));
    }

    let nodeNames: string[] = [];
    const podLogsFile = opts.workloads ? join(this.dir, 'pod-logs.log') : undefined;
    if (podLogsFile !== undefined) {
      await writeFile(podLogsFile, podLogLines(new Date()));
      const extraNodes = opts.extraWorkloads
        ? extra.map((access, i) =>
            this.startWorkloads(access, 1, podLogsFile, `kube-apiserver-extra-${i}`, `-extra-${i}`),
          )
        : [];
      nodeNames = await this.startWorkloads(mainAccess, opts.nodes ?? 2, podLogsFile, main.name);
      await Promise.all(extraNodes);
    }

    const stopApiServer = async () => {
      this.expectedExits.add(main.proc);
      await stopProc(main.proc);
    };
    const startApiServer = async () => {
      if (main.proc.exit === undefined) throw new Error('kube-apiserver is running: stop it first');
      // The start's deadline is long past by now: a restart gets a budget of its own, as long as a start's.
      const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      main.proc = this.spawn(main.name, 'kube-apiserver', main.args);
      await this.waitApiServerReady(main.proc, { ...main.endpoint, caPem: mainAccess.caPem }, deadline);
    };
    const restartApiServer = async () => {
      await stopApiServer();
      await startApiServer();
    };
    // Acting on a stopped control plane would leak the new process.
    const unlessStopped = (f: () => Promise<void>) => () =>
      this.stopping ? Promise.reject(new Error('control plane is stopped')) : f();
    this.started = true;
    return {
      ...mainAccess,
      ...(secondAccess ? { second: secondAccess } : {}),
      extra,
      etcdEndpoint,
      dir: this.dir,
      nodeNames,
      ...(podLogsFile === undefined ? {} : { podLogsFile }),
      ...(frontProxy ? { frontProxyCaPem: frontProxy.caPem } : {}),
      processes: () => [
        ...[...this.procs]
          .filter((p) => p.exit === undefined)
          .map(({ name, pid, logPath }) => ({ name, pid, logPath })),
        ...(this.stopping || this.guard.watchdogPid < 0
          ? []
          : [{ name: 'watchdog', pid: this.guard.watchdogPid, logPath: '' }]),
      ],
      restartApiServer: unlessStopped(restartApiServer),
      stopApiServer: unlessStopped(stopApiServer),
      startApiServer: unlessStopped(startApiServer),
      stop: () => this.stop(),
    };
  }

  stop(keepDir = false): Promise<void> {
    this.stopping ??= (async () => {
      // Clients first, so nothing logs a storm of connection errors while etcd goes away.
      const workloads = ['kwok', 'kube-scheduler', 'kube-controller-manager'];
      const tiers = [
        [...this.procs]
          .map((p) => p.name)
          .filter((n) => workloads.some((w) => n === w || n.startsWith(`${w}-extra-`))),
        [
          'kube-apiserver',
          'kube-apiserver-second',
          ...[...this.procs].map((p) => p.name).filter((n) => n.startsWith('kube-apiserver-extra-')),
        ],
        ['etcd'],
      ];
      for (const tier of tiers) {
        await Promise.all([...this.procs].filter((p) => tier.includes(p.name)).map((p) => stopProc(p)));
      }
      await Promise.all([...this.procs].map((p) => stopProc(p)));
      this.guard.release();
      if (!keepDir) await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return this.stopping;
  }

  private spawn(name: string, binary: string, args: readonly string[]): Proc {
    const proc = spawnLogged({
      name,
      command: join(this.bin, binary),
      args,
      logPath: join(this.dir, 'logs', `${name}.log`),
      // HOME keeps kwok (and anything else) away from the user's ~/.kwok and ~/.kube.
      env: { ...process.env, HOME: this.dir, KUBECONFIG: '' },
      cwd: this.dir,
    });
    for (const p of this.procs) if (p.name === name && p.exit !== undefined) this.procs.delete(p);
    this.procs.add(proc);
    this.guard.record(this.procs);
    void proc.exited.then(() => {
      if (this.stopping) return;
      this.guard.record(this.procs);
      if (this.started && !this.expectedExits.has(proc)) {
        // A test waiting on pods would otherwise just time out with no hint why.
        process.stderr.write(
          `testenv: ${proc.name} (pid ${proc.pid}) exited unexpectedly ${exitText(proc)}\n${logTail(proc)}\n`,
        );
      }
    });
    return proc;
  }

  /** Starts a process on fresh ports, retrying when another process grabbed a port first. */
  private withPortRetry<T>(start: (ports: number[]) => Promise<{ proc: Proc; value: T }>, count: number) {
    return startOnFreePorts(
      count,
      async (ports) => (await start(ports)).value,
      (proc) => this.procs.delete(proc),
    );
  }

  private async startEtcd(): Promise<string> {
    return this.withPortRetry(async ([clientPort = 0, peerPort = 0]) => {
      const proc = this.spawn(
        'etcd',
        'etcd',
        etcdArgs({ dataDir: join(this.dir, 'etcd'), clientPort, peerPort }),
      );
      const endpoint = `http://127.0.0.1:${clientPort}`;
      await this.poll('etcd to report healthy', [proc], this.deadline, async () => {
        const res = await request({ server: endpoint }, 'GET', '/health', undefined, 2000);
        return res.status === 200 && (JSON.parse(res.body) as { health?: string }).health === 'true';
      });
      return { proc, value: endpoint };
    }, 2);
  }

  private async startApiServer(
    name: string,
    layout: Omit<Parameters<typeof apiServerArgs>[0], 'port'>,
  ): Promise<ApiServer> {
    await mkdir(layout.certDir, { recursive: true });
    return this.withPortRetry(async ([port = 0]) => {
      const args = apiServerArgs({ ...layout, port });
      const proc = this.spawn(name, 'kube-apiserver', args);
      const endpoint: Endpoint = { server: `https://127.0.0.1:${port}`, token: this.token };
      // The serving cert appears while it starts; trust it only once it answers.
      await this.waitApiServerReady(proc, { ...endpoint, insecure: true });
      const caPem = await readFile(join(layout.certDir, 'apiserver.crt'), 'utf8');
      const ready = await request({ ...endpoint, caPem }, 'GET', '/readyz');
      if (ready.status !== 200) {
        throw new ControlPlaneStartError(`${name} /readyz with its own cert as CA: ${ready.status}`);
      }
      return { proc, value: { proc, args, name, endpoint } };
    }, 1);
  }

  private async waitApiServerReady(proc: Proc, endpoint: Endpoint, deadline = this.deadline): Promise<void> {
    await this.poll(`${proc.name} /readyz`, [proc], deadline, async () => {
      const res = await request(endpoint, 'GET', '/readyz', undefined, 3000);
      return res.status === 200;
    });
    // Tests create objects in `default` right away; the apiserver's own controller makes it.
    await this.poll(`${proc.name} namespace default`, [proc], deadline, async () => {
      const res = await request(endpoint, 'GET', '/api/v1/namespaces/default');
      return res.status === 200;
    });
  }

  /**
   * An aggregated apiserver reads the front-proxy CA from this ConfigMap when it starts. A
   * controller kube-apiserver starts after it serves writes it, and /readyz does not wait for
   * that write; without this poll a server started right away could find no CA and trust no
   * proxy. (Measured: by the time namespace default exists it is there, so this costs ~10 ms.)
   */
  private async waitRequestHeaderPublished(proc: Proc, endpoint: Endpoint): Promise<void> {
    await this.poll(
      'kube-system/extension-apiserver-authentication requestheader keys',
      [proc],
      this.deadline,
      async () => {
        const res = await request(
          endpoint,
          'GET',
          '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
        );
        if (res.status !== 200) return false;
        const data = (JSON.parse(res.body) as { data?: Record<string, string> }).data ?? {};
        return (data['requestheader-client-ca-file'] ?? '') !== '' && 'requestheader-allowed-names' in data;
      },
    );
  }

  private async writeAccess(name: string, api: ApiServer, token: string): Promise<ClusterAccess> {
    const caPem = await readFile(join(this.dir, api.name, 'certs', 'apiserver.crt'), 'utf8');
    const creds: ClusterCredentials = { server: api.endpoint.server, caPem, token };
    const kubeconfigPath = join(this.dir, `${name}.kubeconfig`);
    await writeFile(kubeconfigPath, renderKubeconfig(name, creds), { mode: 0o600 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    return { ...creds, kubeconfigPath, kubeConfig };
  }

  /** The workload processes for one cluster; `suffix` names them apart for an extra cluster. */
  private async startWorkloads(
    access: ClusterAccess,
    nodes: number,
    podLogsFile: string,
    apiName: string,
    suffix = '',
  ): Promise<string[]> {
    const kubeconfig = access.kubeconfigPath;
    const stagesFile = join(this.dir, `kwok-stages${suffix}.yaml`);
    await writeFile(stagesFile, stagesYaml(podLogsFile));
    const certs = join(this.dir, apiName, 'certs');
    const kubelet = {
      port: await freePort(),
      certFile: join(certs, 'apiserver.crt'),
      keyFile: join(certs, 'apiserver.key'),
    };
    const procs = [
      this.spawn(
        `kube-controller-manager${suffix}`,
        'kube-controller-manager',
        controllerManagerArgs({ kubeconfig }),
      ),
      this.spawn(`kube-scheduler${suffix}`, 'kube-scheduler', schedulerArgs({ kubeconfig })),
      this.spawn(`kwok${suffix}`, 'kwok', kwokArgs({ kubeconfig, stagesFile, kubelet })),
    ];
    const api: Endpoint = access;
    const names = Array.from({ length: nodes }, (_, i) => `kwok-node-${i}`);
    for (const name of names) {
      const res = await request(api, 'POST', '/api/v1/nodes', nodeManifest(name));
      if (res.status !== 201)
        throw new ControlPlaneStartError(`creating Node ${name}: ${res.status} ${res.body}`);
    }
    // Ready comes from kwok; the not-ready taint (put on by admission at creation) is lifted
    // by kube-controller-manager's node-lifecycle controller. Pods need both.
    await this.poll(`nodes ${names.join(', ')} Ready and untainted`, procs, this.deadline, async () => {
      const res = await request(api, 'GET', '/api/v1/nodes');
      if (res.status !== 200) return false;
      const list = JSON.parse(res.body) as { items: NodeLike[] };
      return names.every((n) => {
        const node = list.items.find((i) => i.metadata.name === n);
        return node !== undefined && nodeSchedulable(node);
      });
    });
    this.phase(`nodes Ready and untainted${suffix}`);
    const sc = await request(api, 'POST', '/apis/storage.k8s.io/v1/storageclasses', defaultStorageClass());
    if (sc.status !== 201)
      throw new ControlPlaneStartError(
        `creating StorageClass ${DEFAULT_STORAGE_CLASS}: ${sc.status} ${sc.body}`,
      );
    // Pod admission rejects pods until serviceaccount-controller has made `default`.
    await this.poll('service account default/default', procs, this.deadline, async () => {
      const res = await request(api, 'GET', '/api/v1/namespaces/default/serviceaccounts/default');
      return res.status === 200;
    });
    return names;
  }

  /**
   * Polls `check` until it holds, failing fast with the process's log when one of `procs`
   * exits, and with every watched log's tail at the deadline.
   */
  private async poll(
    what: string,
    procs: readonly Proc[],
    deadline: number,
    check: () => Promise<boolean | undefined>,
  ) {
    let lastError: unknown;
    for (;;) {
      const dead = procs.find((p) => p.exit !== undefined);
      if (dead) throw new ProcessExitedError(dead, `while waiting for ${what}`);
      try {
        if (await check()) return;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() > deadline) {
        const last = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
        throw new ControlPlaneStartError(
          `timed out waiting for ${what}${last}\n${procs.map((p) => logTail(p)).join('\n')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
