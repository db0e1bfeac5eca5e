// Builds the local control plane's binaries (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok) from their Go modules into a cache outside the repo, keyed by
// versions.json, or takes them from $CONVOY_TESTENV_BIN. Tests and `convoy dev` call
// ensureBinaries(); the first call on a machine builds (10–25 min), later calls are instant.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { doneLine, heartbeatLine, startLine, withHeartbeat } from './build-progress.ts';
import {
  downloadJson,
  ensureBuilt,
  go,
  logToStderr,
  requireGo,
  TestenvBuildError,
  versionedCacheRoot,
  wrapperModule,
} from './gobuild.ts';
import versions from './versions.json' with { type: 'json' };

// kubectl is not needed by convoy; `convoy dev` hands it to the user so the printed commands work.
export const BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
  'kubectl',
] as const;
export type Binary = (typeof BINARIES)[number];

export interface BuildOptions {
  readonly log?: (line: string) => void;
}

/** What a finished build records next to the binaries; the testenv bench prints it. */
export interface BuildRecord {
  readonly versions: typeof versions;
  readonly goVersion: string;
  readonly seconds: Readonly<Record<string, number>>;
  readonly finishedAt: string;
}

export function cacheRoot(): string {
  return versionedCacheRoot('CONVOY_TESTENV_CACHE', 'testenv', versions);
}

/** Returns a directory holding every binary in BINARIES, building them first if needed. */
export function ensureBinaries(opts: BuildOptions = {}): Promise<string> {
  const log = opts.log ?? logToStderr;
  const root = cacheRoot();
  return ensureBuilt({
    variable: 'CONVOY_TESTENV_BIN',
    names: BINARIES,
    root,
    log,
    build: (_, bin) => build(root, bin, log),
  });
}

/** etcd, kwok, Kubernetes: the steps of build(). */
const STEPS = 3;

async function build(root: string, bin: string, log: (line: string) => void): Promise<void> {
  const gover = await requireGo(
    versions.go,
    `convoy's local control plane builds etcd ${versions.etcd}, Kubernetes ${versions.kubernetes} and kwok ${versions.kwok} ` +
      `from their Go modules and needs Go >= ${versions.go}. ` +
      'Install Go, or set CONVOY_TESTENV_BIN to a directory that already holds the binaries.',
    `Kubernetes ${versions.kubernetes} needs`,
  );
  const staging = join(root, 'bin.partial');
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const seconds: Record<string, number> = {};
  const buildStarted = Date.now();
  let index = 0;
  const step = async (name: string, what: () => Promise<void>) => {
    const clock = { name, index: ++index, total: STEPS, stepStarted: Date.now(), buildStarted };
    log(startLine(clock));
    await withHeartbeat(what, () => log(heartbeatLine(clock, Date.now())));
    seconds[name] = Math.round((Date.now() - clock.stepStarted) / 1000);
    log(doneLine(clock, Date.now()));
  };
  log(
    `testenv: building the local control plane with ${gover} into ${root} (first time only; 10–25 minutes)`,
  );
  await step(`etcd ${versions.etcd}`, () =>
    buildFromModule(root, staging, {
      name: 'etcd',
      module: 'go.etcd.io/etcd/server/v3',
      version: versions.etcd,
    }),
  );
  await step(`kwok ${versions.kwok}`, () =>
    buildFromModule(root, staging, {
      name: 'kwok',
      module: 'sigs.k8s.io/kwok',
      version: versions.kwok,
      pkg: 'sigs.k8s.io/kwok/cmd/kwok',
    }),
  );
  await step(`kube-apiserver, kube-controller-manager, kube-scheduler, kubectl ${versions.kubernetes}`, () =>
    buildKubernetes(root, staging),
  );
  const record: BuildRecord = { versions, goVersion: gover, seconds, finishedAt: new Date().toISOString() };
  await writeFile(join(staging, 'build.json'), `${JSON.stringify(record, null, 2)}\n`);
  // File by file, each rename atomic: a control plane starting meanwhile never finds a binary missing.
  await mkdir(bin, { recursive: true });
  for (const name of [...BINARIES, 'build.json']) await rename(join(staging, name), join(bin, name));
  await rm(staging, { recursive: true, force: true });
}

/** The build record of the cached binaries, if they were built here. */
export async function readBuildRecord(): Promise<BuildRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(cacheRoot(), 'bin', 'build.json'), 'utf8')) as BuildRecord;
  } catch {
    return undefined;
  }
}

/**
 * One Go module's binary at its pinned version: a wrapper module requires it, then `go build`s `pkg`
 * (the module itself when not given).
 */
async function buildFromModule(
  root: string,
  out: string,
  m: {
    readonly name: 'etcd' | 'kwok';
    readonly module: string;
    readonly version: string;
    readonly pkg?: string;
  },
): Promise<void> {
  const { name, module, version, pkg = module } = m;
  const dir = await wrapperModule(
    root,
    name,
    `module convoy.local/testenv/${name}\n\ngo ${versions.go}.0\n\nrequire ${module} ${version}\n`,
  );
  await go(dir, ['mod', 'download', `${module}@${version}`]);
  await go(dir, ['build', '-trimpath', '-ldflags', '-s -w', '-o', join(out, name), pkg]);
}

/**
 * k8s.io/kubernetes cannot be `go install`ed: its go.mod replaces the staging modules with
 * ./staging paths that the module zip lacks. The wrapper requires it and points each staging
 * module at its published v0.<minor>.<patch>, read from the downloaded go.mod.
 */
async function buildKubernetes(root: string, out: string): Promise<void> {
  const k8s = versions.kubernetes;
  const [major, minor, patch] = k8s.replace(/^v/, '').split('.');
  const probe = await wrapperModule(
    root,
    'kubernetes-probe',
    `module convoy.local/testenv/probe\n\ngo ${versions.go}.0\n`,
  );
  const upstreamGoMod = await readFile((await downloadJson(probe, `k8s.io/kubernetes@${k8s}`)).GoMod, 'utf8');
  const staging = [...upstreamGoMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\//gm)].map(
    (m) => m[1],
  );
  if (staging.length === 0)
    throw new TestenvBuildError(`no staging replace directives found in k8s.io/kubernetes@${k8s} go.mod`);
  const godebug = upstreamGoMod.match(/^godebug .*$/m)?.[0] ?? '';
  const goMod = [
    'module convoy.local/testenv/kubernetes',
    '',
    `go ${versions.go}.0`,
    '',
    godebug,
    '',
    `require k8s.io/kubernetes ${k8s}`,
    '',
    'replace (',
    ...staging.map((m) => `\t${m} => ${m} v0.${minor}.${patch}`),
    ')',
    '',
  ].join('\n');
  const dir = await wrapperModule(root, 'kubernetes', goMod);
  const ldflags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    ldflags.push(
      `-X ${pkg}.gitVersion=${k8s}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.buildDate=1970-01-01T00:00:00Z`,
    );
  }
  // One `go build` for all commands shares their compile work.
  await go(dir, [
    'build',
    '-trimpath',
    '-tags',
    'selinux,notest',
    '-ldflags',
    ldflags.join(' '),
    '-o',
    `${out}/`,
    'k8s.io/kubernetes/cmd/kube-apiserver',
    'k8s.io/kubernetes/cmd/kube-controller-manager',
    'k8s.io/kubernetes/cmd/kube-scheduler',
    'k8s.io/kubernetes/cmd/kubectl',
  ]);
}

export const binaryPath = (dir: string, name: Binary): string => join(dir, name);
export const hasCachedBinaries = (): boolean =>
  BINARIES.every((b) => existsSync(join(cacheRoot(), 'bin', b)));
