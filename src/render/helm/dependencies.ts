// A chart's dependencies as `helm dependency build` reads them, so convoy can build the ones its
// charts/ folder lacks as Argo CD and Flux do (a `.gitignore`d charts/ is common): which Chart.yaml
// lists (the version pinned by Chart.lock when it has one), which charts/ already holds, and where each
// missing one comes from — an HTTP chart repository, an OCI registry, or a folder of the source
// (`file://`). Conditions and tags are left to helm, which applies them when it renders. Pure.
import { posix } from 'node:path';
import { parse } from 'yaml';
import { errorMessage } from '../../lib/errors.ts';
import type { Problem } from '../errors.ts';
import { type Checked, fail, ok } from '../result.ts';
import type { SourceFile } from '../types.ts';

export type ChartDependency = {
  /** Its index in Chart.yaml's dependencies, for messages. */
  readonly index: number;
  readonly name: string;
  /** The version or range; Chart.lock's exact version when the lock lists it. */
  readonly version: string | undefined;
  readonly repository: string | undefined;
};

export type DependencyOrigin =
  | { readonly kind: 'http'; readonly url: string }
  /** oci://host/path/<name>: the chart's own repository in the registry. */
  | { readonly kind: 'oci'; readonly url: string }
  /** A folder of the source, relative to the chart directory. */
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'unsupported'; readonly message: string };

/** Where a problem with one dependency is shown. */
export const dependencyField = (d: ChartDependency): string => `Chart.yaml dependencies[${d.index}]`;

/** "redis 18.x from https://charts.example.com": the chart, the version and the repository. */
export function describeDependency(d: ChartDependency): string {
  return `${d.name} ${d.version ?? '(no version)'} from ${d.repository ?? '(no repository)'}`;
}

type Entry = { name?: unknown; version?: unknown; repository?: unknown };

function entriesOf(text: string, file: string): Checked<readonly Entry[]> {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch (e) {
    return fail([{ where: file, message: `not YAML: ${errorMessage(e)}` }]);
  }
  const deps = (doc as { dependencies?: unknown } | null)?.dependencies;
  if (deps === undefined || deps === null) return ok([]);
  if (!Array.isArray(deps)) return fail([{ where: `${file} dependencies`, message: 'not a list' }]);
  return ok(deps.map((d) => (d !== null && typeof d === 'object' ? (d as Entry) : {})));
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Chart.yaml's dependencies, each with Chart.lock's version when the lock names it. */
export function chartDependencies(
  chartYaml: string,
  chartLock: string | undefined,
): Checked<readonly ChartDependency[]> {
  const listed = entriesOf(chartYaml, 'Chart.yaml');
  if (!listed.ok) return listed;
  const locked = chartLock === undefined ? ok([]) : entriesOf(chartLock, 'Chart.lock');
  const lock = locked.ok ? locked.value : [];
  const problems: Problem[] = [];
  const deps: ChartDependency[] = [];
  for (const [index, e] of listed.value.entries()) {
    const name = text(e.name);
    if (name === undefined) {
      problems.push({ where: `Chart.yaml dependencies[${index}]`, message: 'has no name' });
      continue;
    }
    const repository = text(e.repository);
    const pinned = lock.find((l) => text(l.name) === name && text(l.repository) === repository);
    deps.push({ index, name, version: text(pinned?.version) ?? text(e.version), repository });
  }
  return problems.length > 0 ? fail(problems) : ok(deps);
}

/** The chart names charts/ holds: its unpacked charts (their Chart.yaml's name) and archives. */
export function vendoredCharts(files: readonly SourceFile[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const f of files) {
    const m = /^charts\/([^/]+)(\/Chart\.yaml)?$/.exec(f.path);
    if (m === null) continue;
    const [, entry = '', chartYaml] = m;
    if (chartYaml !== undefined) {
      const name = nameOf(f.data);
      if (name !== undefined) names.add(name);
    } else {
      // helm package names archives <name>-<version>.tgz
      const archive = /^(.+)-\d[^/]*\.tgz$/.exec(entry);
      if (archive?.[1] !== undefined) names.add(archive[1]);
    }
  }
  return names;
}

function nameOf(data: Uint8Array): string | undefined {
  try {
    return text((parse(Buffer.from(data).toString('utf8'), { maxAliasCount: 100 }) as Entry | null)?.name);
  } catch {
    // helm reports a broken Chart.yaml in charts/ when it loads the chart.
    return undefined;
  }
}

/** Where a dependency charts/ lacks is built from. */
export function dependencyOrigin(d: ChartDependency): DependencyOrigin {
  const repo = d.repository;
  if (repo === undefined) {
    return {
      kind: 'unsupported',
      message:
        'it is not in charts/ and names no repository: vendor it into charts/ or give its repository URL',
    };
  }
  if (repo.startsWith('@') || repo.startsWith('alias:')) {
    return {
      kind: 'unsupported',
      message: `repository ${JSON.stringify(repo)} is a name from \`helm repo add\`: write the repository's URL in Chart.yaml`,
    };
  }
  if (repo.startsWith('https://') || repo.startsWith('http://')) return { kind: 'http', url: repo };
  if (repo.startsWith('oci://')) return { kind: 'oci', url: `${repo.replace(/\/+$/, '')}/${d.name}` };
  if (repo.startsWith('file://')) {
    const raw = repo.slice('file://'.length);
    const path = posix.normalize(raw).replace(/\/+$/, '');
    if (raw.startsWith('/') || path === '..' || path.startsWith('../')) {
      return {
        kind: 'unsupported',
        message: `${repo} is outside the chart directory, and convoy gets only the files under the source path: vendor the chart into charts/ (helm dependency build), or move it under the chart directory`,
      };
    }
    if (path === '.' || path === '') {
      return { kind: 'unsupported', message: `${repo} is the chart itself` };
    }
    return { kind: 'file', path };
  }
  return {
    kind: 'unsupported',
    message: `repository ${JSON.stringify(repo)}: want https://, http://, oci:// or file://`,
  };
}
