// An Argo CD Application (argoproj.io/v1alpha1) as a convoy Release. What maps: the git source (repoURL,
// path, targetRevision), Helm and Kustomize settings convoy has, the destination, syncPolicy.automated
// (prune, selfHeal) and the rest as notes. Argo CD judges health always and rolls back never; the
// Release judges health with the default rules and the library, and gets no failurePolicy (say so).
// Pure. See docs/migrating.md.
import type { ReleaseSpec } from '../api/types.ts';
import { setAtPath } from '../render/helm/values.ts';
import { argoRevision } from './git-ref.ts';
import { chartRepositorySource } from './helm-chart.ts';
import {
  asRecord,
  beginImport,
  type Doc,
  type DocImport,
  type ImportOptions,
  list,
  type MutableSpec,
  release,
  str,
} from './types.ts';

const IN_CLUSTER = new Set(['https://kubernetes.default.svc', 'https://kubernetes.default.svc/']);

/** Sync options convoy does anyway (Server-Side Apply is how convoy applies everything). */
const BUILT_IN_OPTIONS = new Set(['ServerSideApply=true', 'ApplyOutOfSyncOnly=true']);

export function isArgoApplication(d: Doc): boolean {
  return d.kind === 'Application' && String(d.apiVersion ?? '').startsWith('argoproj.io/');
}

export function importArgoApplication(d: Doc, opts: ImportOptions = {}): DocImport {
  const { notes, note, meta, spec, name } = beginImport(d);
  if (name === undefined) return { notes };
  const dest = asRecord(spec.destination);
  const namespace = opts.namespace ?? str(dest.namespace) ?? str(meta.namespace) ?? 'default';

  let src = asRecord(spec.source);
  const sources = list(spec.sources);
  if (sources.length > 0) {
    src = asRecord(sources[0]);
    if (sources.length > 1)
      note(
        'spec.sources',
        `${sources.length} sources; convoy renders one source per Release: only the first was imported — make a Release for each of the others`,
      );
  }
  const repoURL = str(src.repoURL);
  if (repoURL === undefined) {
    note('spec.source.repoURL', 'missing; nothing imported');
    return { notes };
  }

  const out: MutableSpec = { source: {} };
  const chart = str(src.chart);
  const helm = asRecord(src.helm);
  const kustomize = asRecord(src.kustomize);
  const render: NonNullable<ReleaseSpec['render']> & {
    -readonly [K in 'type']?: 'Plain' | 'Kustomize' | 'Helm';
  } = {};
  const renderType =
    chart !== undefined || src.helm !== undefined
      ? 'Helm'
      : src.kustomize !== undefined
        ? 'Kustomize'
        : 'Plain';

  if (chart !== undefined) {
    const c = chartRepositorySource(repoURL, chart, str(src.targetRevision));
    if (c.kind === 'unsupported') {
      note('spec.source.chart', c.note);
      return { notes };
    }
    out.source = c.source;
  } else {
    const ref = argoRevision(src.targetRevision);
    if (ref.kind === 'unsupported') note('spec.source.targetRevision', ref.note);
    else if (ref.note !== undefined) note('spec.source.targetRevision', ref.note);
    const path = str(src.path);
    out.source = {
      git: {
        url: repoURL,
        ...(ref.kind === 'ok' && ref.ref !== undefined ? { ref: ref.ref } : {}),
        ...(path === undefined || path === '.' ? {} : { path }),
      },
    };
    // Argo CD keeps credentials in repository Secrets, out of sight here; only an SSH URL always needs one.
    if (isSshUrl(repoURL))
      note(
        'spec.source.repoURL',
        'an SSH URL needs a key: Argo CD keeps it in a repository Secret; give the Release a Secret in its namespace (keys identity and known_hosts) and set source.git.secretRef',
      );
  }

  if (renderType === 'Helm') {
    render.type = 'Helm';
    render.helm = helmSettings(helm, name, note);
  } else if (renderType === 'Kustomize') {
    render.type = 'Kustomize';
    for (const k of Object.keys(kustomize))
      note(
        `spec.source.kustomize.${k}`,
        'not carried over: put it in the kustomization.yaml in git (convoy runs kustomize build on it as it is)',
      );
  } else {
    const dir = asRecord(src.directory);
    if (src.directory !== undefined && dir.recurse !== true)
      note(
        'spec.source.directory.recurse',
        `${dir.recurse === undefined ? 'absent' : String(dir.recurse)}: Argo CD reads only the top level, convoy every YAML file under the path, subdirectories included — move files that must not be applied out of the path`,
      );
    const directoryActions: Readonly<Record<string, string>> = {
      include:
        'not supported: keep only the files to apply under the path (or point path at a folder that has only them)',
      exclude: 'not supported: move the excluded files out of the path',
      jsonnet: 'not supported: render the jsonnet to YAML in the repository (or use Kustomize or Helm)',
    };
    for (const [k, action] of Object.entries(directoryActions))
      if (dir[k] !== undefined) note(`spec.source.directory.${k}`, action);
    note(
      'spec.source',
      'Argo CD detects Kustomize and Helm from the files; if the path holds a kustomization.yaml or a Chart.yaml, set render.type to Kustomize or Helm',
    );
  }

  const destNs = str(dest.namespace);
  if (destNs !== undefined && destNs !== namespace) render.targetNamespace = destNs;
  else if (destNs !== undefined && renderType === 'Helm') render.targetNamespace = destNs;
  if (Object.keys(render).length > 0) out.render = render;

  const server = str(dest.server);
  const destName = str(dest.name);
  if (
    (server !== undefined && !IN_CLUSTER.has(server)) ||
    (destName !== undefined && destName !== 'in-cluster')
  ) {
    const cluster = (destName ?? hostName(server ?? ''))
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 63);
    out.cluster = { name: cluster };
    note(
      'spec.destination',
      `another cluster (${destName ?? server}): create a Cluster named ${cluster} in namespace ${namespace} with a kubeconfig Secret (docs/reference/cluster.md)`,
    );
  }

  const sp = asRecord(spec.syncPolicy);
  const automated = sp.automated === undefined ? undefined : asRecord(sp.automated);
  out.syncPolicy = {
    mode: automated === undefined ? 'Manual' : 'Auto',
    prune: automated?.prune === true,
    ...(automated?.selfHeal === true ? { selfHeal: true } : {}),
    interval: '3m',
  };
  if (automated === undefined)
    note(
      'spec.syncPolicy.automated',
      'absent: the Release is Manual — approve each new render with `convoy approve` (or set syncPolicy.mode: Auto)',
    );
  for (const o of list(sp.syncOptions)) {
    const opt = String(o);
    if (BUILT_IN_OPTIONS.has(opt)) continue;
    if (opt === 'CreateNamespace=true')
      note(
        'spec.syncPolicy.syncOptions',
        'CreateNamespace=true: put the Namespace object in the render (wave -1)',
      );
    else
      note(
        'spec.syncPolicy.syncOptions',
        `${opt}: convoy has no such option; remove it (docs/migrating.md lists what convoy does instead)`,
      );
  }
  if (sp.retry !== undefined)
    note('spec.syncPolicy.retry', 'convoy retries failed syncs with backoff by itself; not carried over');
  if (spec.ignoreDifferences !== undefined)
    note(
      'spec.ignoreDifferences',
      'not carried over: convoy only owns the fields it applies (Server-Side Apply); fields other managers set are not drift',
    );
  const project = str(spec.project);
  if (project !== undefined && project !== 'default')
    note(
      'spec.project',
      `project ${project}: convoy scopes by namespace; set serviceAccountName to a ServiceAccount with the project's permissions`,
    );
  note(
    'spec',
    'Argo CD never rolls back by itself; to have convoy do it, add failurePolicy: {deadline: 5m, rollback: OnFailure}',
  );
  return { release: release(name, namespace, out), notes };
}

function helmSettings(
  helm: Readonly<Record<string, unknown>>,
  name: string,
  note: (field: string, message: string) => void,
): NonNullable<NonNullable<ReleaseSpec['render']>['helm']> {
  const out: { -readonly [K in keyof NonNullable<NonNullable<ReleaseSpec['render']>['helm']>]: unknown } = {};
  const releaseName = str(helm.releaseName);
  if (releaseName !== undefined && releaseName !== name) out.releaseName = releaseName;
  const files = list(helm.valueFiles).filter((f): f is string => typeof f === 'string');
  if (files.length > 0) out.valuesFiles = files;
  let values: Record<string, unknown> = {};
  const obj = asRecord(helm.valuesObject);
  if (Object.keys(obj).length > 0) values = { ...obj };
  else if (str(helm.values) !== undefined)
    note(
      'spec.source.helm.values',
      'a YAML string: copied into render.helm.values only if you paste it there as YAML',
    );
  for (const p of list(helm.parameters)) {
    const pr = asRecord(p);
    const key = str(pr.name);
    if (key === undefined) continue;
    if (pr.forceString !== true && /^(true|false|-?\d+)$/.test(String(pr.value ?? '')))
      setAtPath(values, key, JSON.parse(String(pr.value)));
    else setAtPath(values, key, String(pr.value ?? ''));
  }
  if (Object.keys(values).length > 0) out.values = values;
  for (const [k, action] of Object.entries(HELM_ACTIONS))
    if (helm[k] !== undefined) note(`spec.source.helm.${k}`, action);
  return out as NonNullable<NonNullable<ReleaseSpec['render']>['helm']>;
}

/** What to do instead of each Argo CD helm setting convoy does not carry over. */
const HELM_ACTIONS: Readonly<Record<string, string>> = {
  fileParameters: "not carried over: put each file's contents under its key in render.helm.values",
  passCredentials:
    "not carried over: convoy sends the Release's credentials to its source's own host only (a chart's dependencies there get them); for registries on other hosts, put their entries in a docker-config Secret",
  skipCrds: "not carried over: convoy applies the chart's crds/; move them out of the chart to skip them",
  version: 'not carried over: convoy renders with Helm 4; remove it',
  kubeVersion: 'not carried over: convoy takes it from the target cluster',
  apiVersions: 'not carried over: convoy takes them from the target cluster',
};

/** git@host:path and ssh:// URLs: always authenticated. */
function isSshUrl(url: string): boolean {
  return url.startsWith('ssh://') || /^[^/:@]+@[^/:]+:/.test(url);
}

function hostName(url: string): string {
  try {
    return new URL(url).hostname.split('.')[0] ?? 'remote';
  } catch {
    return 'remote';
  }
}
