// Building the dependencies a chart's charts/ folder lacks, as Argo CD and Flux run `helm dependency
// build` before rendering: each missing chart fetched with the sources convoy already has — an HTTP
// chart repository through ChartRepoSource, an OCI registry through OciSource (both bounded per request
// and in size, checked against their digests, and caching what they read by digest) — or copied from a
// folder of the source (`file://`), then unpacked under charts/ for `helm template`, which stays offline.
// The Release's credentials go to its source's own host only; a registry on loopback may be plain HTTP
// (as Docker allows), or the source's host when the Release says insecure.

import type { Problem } from '../errors.ts';
import { SourceError } from '../errors.ts';
import { DOCKER_CONFIG_KEY } from '../oci/auth.ts';
import { type Checked, fail, ok } from '../result.ts';
import { parseVersion } from '../semver.ts';
import { type Source, urlHost } from '../source.ts';
import type { ChartSourceSpec, CredentialData, OciSourceSpec, SourceAccess, SourceFile } from '../types.ts';
import {
  type ChartDependency,
  chartDependencies,
  dependencyField,
  dependencyOrigin,
  describeDependency,
  vendoredCharts,
} from './dependencies.ts';

export type DependencyFetchers = {
  readonly chart: Source<ChartSourceSpec>;
  readonly oci: Source<OciSourceSpec>;
};

/** Dependencies built for one render at most, and their unpacked bytes together. */
export const DEPENDENCY_LIMITS = { count: 50, bytes: 256 * 1024 * 1024 } as const;

const decoder = new TextDecoder();

/** The chart's files with every missing dependency under charts/, or a problem per one that failed. */
export async function withDependencies(
  files: readonly SourceFile[],
  fetchers: DependencyFetchers,
  access: SourceAccess | undefined,
  signal: AbortSignal | undefined,
): Promise<Checked<readonly SourceFile[]>> {
  const chartYaml = files.find((f) => f.path === 'Chart.yaml');
  if (chartYaml === undefined) return ok(files);
  const lock = files.find((f) => f.path === 'Chart.lock');
  const deps = chartDependencies(
    decoder.decode(chartYaml.data),
    lock === undefined ? undefined : decoder.decode(lock.data),
  );
  if (!deps.ok) return deps;
  const have = new Set(vendoredCharts(files));
  const missing = deps.value.filter((d) => !have.has(d.name));
  if (missing.length === 0) return ok(files);
  if (missing.length > DEPENDENCY_LIMITS.count) {
    return fail([
      {
        where: 'Chart.yaml dependencies',
        message: `${missing.length} dependencies to build, more than ${DEPENDENCY_LIMITS.count}: vendor some into charts/`,
      },
    ]);
  }
  const problems: Problem[] = [];
  const added: SourceFile[] = [];
  const built = new Set<string>();
  let bytes = files.reduce((n, f) => n + f.data.length, 0);
  for (const d of missing) {
    // Two aliases of one chart need it once.
    const key = `${d.name}\0${d.version ?? ''}\0${d.repository ?? ''}`;
    if (built.has(key) || have.has(d.name)) continue;
    built.add(key);
    let chart: readonly SourceFile[];
    try {
      chart = await fetchDependency(d, files, fetchers, access, signal);
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      problems.push({
        where: dependencyField(d),
        message: `chart ${describeDependency(d)}: ${withoutSourceField(e.message)}`,
      });
      continue;
    }
    bytes += chart.reduce((n, f) => n + f.data.length, 0);
    if (bytes > DEPENDENCY_LIMITS.bytes) {
      problems.push({
        where: dependencyField(d),
        message: `chart ${describeDependency(d)}: the chart and its dependencies pass ${DEPENDENCY_LIMITS.bytes / 1024 / 1024} MiB unpacked`,
      });
      break;
    }
    const dir = folderFor(d, files, added);
    for (const f of chart) added.push({ path: `${dir}/${f.path}`, data: f.data });
    have.add(d.name);
  }
  return problems.length > 0 ? fail(problems) : ok([...files, ...added]);
}

async function fetchDependency(
  d: ChartDependency,
  files: readonly SourceFile[],
  fetchers: DependencyFetchers,
  access: SourceAccess | undefined,
  signal: AbortSignal | undefined,
): Promise<readonly SourceFile[]> {
  const origin = dependencyOrigin(d);
  switch (origin.kind) {
    case 'unsupported':
      throw new SourceError(origin.message);
    case 'file': {
      const prefix = `${origin.path}/`;
      const under = files
        .filter((f) => f.path.startsWith(prefix))
        .map((f) => ({ path: f.path.slice(prefix.length), data: f.data }));
      if (!under.some((f) => f.path === 'Chart.yaml')) {
        throw new SourceError(`${d.repository}: there is no Chart.yaml in ${origin.path}/ of the source`);
      }
      return under;
    }
    case 'http': {
      const host = urlHost(origin.url);
      const spec: ChartSourceSpec = {
        url: origin.url,
        name: d.name,
        ...(d.version === undefined ? {} : { version: d.version }),
      };
      return (await fetchers.chart.fetch(spec, credentialsFor(access, host), signal)).files;
    }
    case 'oci': {
      const host = urlHost(origin.url);
      const version = d.version;
      if (version === undefined) throw new SourceError('an OCI dependency needs a version (or range)');
      // helm push tags a chart with its version, `+` written as `_` (tags cannot hold `+`).
      const ref =
        parseVersion(version) !== undefined ? { tag: version.replace(/\+/g, '_') } : { semver: version };
      const insecure = isLoopback(host) || (access?.insecure === true && host === access.host);
      const out = await fetchers.oci.fetch(
        { url: origin.url, ref, ...(insecure ? { insecure: true } : {}) },
        credentialsFor(access, host),
        signal,
      );
      return withoutTopFolder(out.files);
    }
  }
}

/** All of the source's credentials for its own host; elsewhere only a docker config (keyed by host). */
function credentialsFor(
  access: SourceAccess | undefined,
  host: string | undefined,
): CredentialData | undefined {
  const creds = access?.credentials;
  if (creds === undefined) return undefined;
  if (host !== undefined && host === access?.host) return creds;
  const docker = creds[DOCKER_CONFIG_KEY];
  return docker === undefined ? undefined : { [DOCKER_CONFIG_KEY]: docker };
}

function isLoopback(host: string | undefined): boolean {
  const name = host?.replace(/:\d+$/, '') ?? '';
  return name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** A chart archive's files without its top folder (`redis/Chart.yaml` → `Chart.yaml`). */
function withoutTopFolder(files: readonly SourceFile[]): SourceFile[] {
  const top = files
    .find((f) => f.path.endsWith('/Chart.yaml') && f.path.split('/').length === 2)
    ?.path.split('/')[0];
  if (top === undefined) throw new SourceError('the artifact holds no <chart>/Chart.yaml');
  return files
    .filter((f) => f.path.startsWith(`${top}/`))
    .map((f) => ({ path: f.path.slice(top.length + 1), data: f.data }));
}

/** charts/<name>, or charts/<name>-<index> when the source already has files there. */
function folderFor(d: ChartDependency, files: readonly SourceFile[], added: readonly SourceFile[]): string {
  const taken = (dir: string) => [...files, ...added].some((f) => f.path.startsWith(`${dir}/`));
  const dir = `charts/${d.name}`;
  return taken(dir) ? `charts/${d.name}-dependency-${d.index}` : dir;
}

/** A source's message without its own field (`spec.source.chart.version: `): here it is Chart.yaml's. */
function withoutSourceField(message: string): string {
  return message.replace(/^spec\.source\.(?:chart|oci)(?:\.\w+)*:? /, '');
}
