// Builds the render tools (kustomize, helm) and the OCI registry the tests and `convoy dev` serve
// charts and artifacts from, from their pinned Go modules, into their own cache: keyed by
// tools-versions.json, never by the control plane's versions.json, so a new helm does not rebuild
// Kubernetes. Or takes them from $CONVOY_TOOLS_BIN. The first call on a machine builds (a few
// minutes), later calls are instant.
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureBuilt, go, logToStderr, requireGo, versionedCacheRoot, wrapperModule } from './gobuild.ts';
import versions from './tools-versions.json' with { type: 'json' };

export const TOOLS = ['kustomize', 'helm', 'registry'] as const;
export type Tool = (typeof TOOLS)[number];

export const TOOL_VERSIONS: Readonly<typeof versions> = versions;

type ToolBuild = {
  readonly module: string;
  readonly version: string;
  readonly pkg: string;
  readonly ldflags: readonly string[];
};

const BUILDS: Readonly<Record<Tool, ToolBuild>> = {
  kustomize: {
    module: 'sigs.k8s.io/kustomize/kustomize/v5',
    version: versions.kustomize,
    pkg: 'sigs.k8s.io/kustomize/kustomize/v5',
    ldflags: [],
  },
  helm: {
    module: 'helm.sh/helm/v4',
    version: versions.helm,
    pkg: 'helm.sh/helm/v4/cmd/helm',
    // helm prints its version from a variable set at link time; otherwise it says only "v4.3".
    ldflags: [`-X helm.sh/helm/v4/internal/version.version=${versions.helm}`],
  },
  registry: {
    module: 'github.com/distribution/distribution/v3',
    version: versions.distribution,
    pkg: 'github.com/distribution/distribution/v3/cmd/registry',
    ldflags: [],
  },
};

export function toolsCacheRoot(): string {
  return versionedCacheRoot('CONVOY_TOOLS_CACHE', 'tools', versions);
}

export interface ToolsOptions {
  readonly log?: (line: string) => void;
}

/** A directory holding kustomize, helm and registry, building the missing ones first. */
export function ensureTools(opts: ToolsOptions = {}): Promise<string> {
  const root = toolsCacheRoot();
  const log = opts.log ?? logToStderr;
  const build = (missing: readonly Tool[], bin: string) => buildTools(root, bin, missing, log);
  return ensureBuilt({ variable: 'CONVOY_TOOLS_BIN', names: TOOLS, root, log, what: 'tools', build });
}

async function buildTools(root: string, bin: string, missing: readonly Tool[], log: (line: string) => void) {
  const gover = await requireGo(
    versions.go,
    `convoy's render tools (kustomize ${versions.kustomize}, helm ${versions.helm}, registry ${versions.distribution}) ` +
      `are built from their Go modules and need Go >= ${versions.go}. ` +
      'Install Go, or set CONVOY_TOOLS_BIN to a directory that holds kustomize, helm and registry.',
    'the render tools need',
  );
  await mkdir(bin, { recursive: true });
  log(`tools: building ${missing.join(', ')} with ${gover} into ${root} (first time only; a few minutes)`);
  for (const tool of missing) await buildTool(root, bin, tool, log);
}

async function buildTool(root: string, bin: string, tool: Tool, log: (line: string) => void): Promise<void> {
  const b = BUILDS[tool];
  const started = Date.now();
  log(`tools: building ${tool} (${b.module}@${b.version}) …`);
  const dir = await wrapperModule(
    root,
    tool,
    `module convoy.local/tools/${tool}\n\ngo ${versions.go}.0\n\nrequire ${b.module} ${b.version}\n`,
  );
  await go(dir, ['mod', 'download', `${b.module}@${b.version}`]);
  const partial = join(bin, `${tool}.partial`);
  await rm(partial, { force: true });
  await go(dir, [
    'build',
    '-trimpath',
    '-ldflags',
    ['-s', '-w', ...b.ldflags].join(' '),
    '-o',
    partial,
    b.pkg,
  ]);
  // One atomic rename: a process starting meanwhile finds the tool whole or not at all.
  await rename(partial, join(bin, tool));
  await writeFile(
    join(bin, `${tool}.json`),
    `${JSON.stringify({ module: b.module, version: b.version, seconds: Math.round((Date.now() - started) / 1000) })}\n`,
  );
  log(`tools: built ${tool} in ${Math.round((Date.now() - started) / 1000)}s`);
}

export const toolPath = (dir: string, tool: Tool): string => join(dir, tool);
export const hasCachedTools = (): boolean => TOOLS.every((t) => existsSync(join(toolsCacheRoot(), 'bin', t)));
