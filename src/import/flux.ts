// Flux's Kustomization (kustomize.toolkit.fluxcd.io) and HelmRelease (helm.toolkit.fluxcd.io), with the
// GitRepository / OCIRepository / HelmRepository they name, as convoy Releases. Flux's fields mostly
// have a convoy twin of the same meaning (interval, prune, suspend, targetNamespace, postBuild.substitute,
// serviceAccountName, HelmRelease values/valuesFrom/postRenderers); a HelmRelease that asks for
// remediation by rollback gets failurePolicy. The rest becomes notes. Pure. See docs/migrating.md.
import type { ReleaseSpec } from '../api/types.ts';
import { fluxGitRef } from './git-ref.ts';
import { chartRepositorySource } from './helm-chart.ts';
import {
  asRecord,
  beginImport,
  type Doc,
  type DocImport,
  groupOf,
  type ImportOptions,
  list,
  type MutableSpec,
  type Note,
  release,
  str,
} from './types.ts';

export function isFluxKustomization(d: Doc): boolean {
  return d.kind === 'Kustomization' && groupOf(d.apiVersion) === 'kustomize.toolkit.fluxcd.io';
}

export function isFluxHelmRelease(d: Doc): boolean {
  return d.kind === 'HelmRelease' && groupOf(d.apiVersion) === 'helm.toolkit.fluxcd.io';
}

/** Flux source objects import reads, not converts. */
export function isFluxSource(d: Doc): boolean {
  return groupOf(d.apiVersion) === 'source.toolkit.fluxcd.io';
}

/** Finds a source object among the input documents: kind, name, namespace (default: the referrer's). */
export type SourceLookup = (kind: string, name: string, namespace: string) => Doc | undefined;

export function importFluxKustomization(d: Doc, lookup: SourceLookup, opts: ImportOptions = {}): DocImport {
  const { notes, note, spec, name, namespace } = begin(d);
  if (name === undefined) return { notes };
  const src = sourceOf(asRecord(spec.sourceRef), namespace, str(spec.path), lookup, note, 'spec.sourceRef');
  if (src === undefined) return { notes };
  const out: MutableSpec = { source: src };
  const render: {
    -readonly [K in keyof NonNullable<ReleaseSpec['render']>]: NonNullable<ReleaseSpec['render']>[K];
  } = { type: 'Kustomize' };
  note(
    'spec.path',
    'Flux writes a kustomization.yaml where the path has none; convoy does not: add one, or set render.type: Plain',
  );
  const targetNamespace = str(spec.targetNamespace);
  if (targetNamespace !== undefined) render.targetNamespace = targetNamespace;
  const postBuild = asRecord(spec.postBuild);
  const substitute = asRecord(postBuild.substitute);
  if (Object.keys(substitute).length > 0)
    render.substitute = Object.fromEntries(Object.entries(substitute).map(([k, v]) => [k, String(v)]));
  if (postBuild.substituteFrom !== undefined)
    note(
      'spec.postBuild.substituteFrom',
      'not carried over: copy the values into render.substitute (convoy substitutes from the Release only)',
    );
  out.render = render;
  common(spec, out, note);
  if (spec.prune !== undefined) out.syncPolicy = { ...out.syncPolicy, prune: spec.prune === true };
  for (const k of ['patches', 'images', 'components', 'namePrefix', 'nameSuffix', 'commonMetadata'])
    if (spec[k] !== undefined)
      note(`spec.${k}`, 'not carried over: put it in the kustomization.yaml in the source');
  if (spec.force === true)
    note('spec.force', 'not carried over: convoy never deletes and re-creates objects');
  if (spec.wait === true || spec.healthChecks !== undefined)
    note(
      spec.wait === true ? 'spec.wait' : 'spec.healthChecks',
      'convoy assesses every object of the render with its health rules; not carried over',
    );
  note(
    'spec',
    'Flux never rolls back a Kustomization; to have convoy do it, add failurePolicy: {deadline: 5m, rollback: OnFailure}',
  );
  return { release: release(name, opts.namespace ?? namespace, out), notes };
}

export function importFluxHelmRelease(d: Doc, lookup: SourceLookup, opts: ImportOptions = {}): DocImport {
  const { notes, note, spec, name, namespace } = begin(d);
  if (name === undefined) return { notes };
  let src: ReleaseSpec['source'] | undefined;
  const chartRef = asRecord(spec.chartRef);
  if (Object.keys(chartRef).length > 0) {
    src = sourceOf(chartRef, namespace, undefined, lookup, note, 'spec.chartRef');
  } else {
    const chartSpec = asRecord(asRecord(spec.chart).spec);
    const chart = str(chartSpec.chart);
    const ref = asRecord(chartSpec.sourceRef);
    if (chart === undefined) {
      note('spec.chart.spec.chart', 'missing; nothing imported');
      return { notes };
    }
    if (ref.kind === 'HelmRepository') {
      const repo = lookup('HelmRepository', str(ref.name) ?? '', str(ref.namespace) ?? namespace);
      const url = str(asRecord(repo?.spec).url);
      if (repo === undefined || url === undefined) {
        note(
          'spec.chart.spec.sourceRef',
          `HelmRepository ${str(ref.name) ?? '?'} is not among the input files; nothing imported`,
        );
        return { notes };
      }
      const rs = asRecord(repo.spec);
      const secretRef = str(asRecord(rs.secretRef).name);
      const certSecretRef = str(asRecord(rs.certSecretRef).name);
      const c = chartRepositorySource(url, chart, str(chartSpec.version), {
        ...(secretRef === undefined ? {} : { secretRef }),
        ...(certSecretRef === undefined ? {} : { certSecretRef }),
      });
      if (c.kind === 'unsupported') {
        note('spec.chart.spec', c.note);
        return { notes };
      }
      if (c.note !== undefined) note('spec.chart.spec', c.note);
      src = c.source;
    } else {
      // A chart directory inside a GitRepository or OCIRepository: its path is the chart field.
      src = sourceOf(ref, namespace, chart, lookup, note, 'spec.chart.spec.sourceRef');
    }
    const files = list(chartSpec.valuesFiles).filter((f): f is string => typeof f === 'string');
    if (files.length > 0) note('spec.chart.spec.valuesFiles', 'moved to render.helm.valuesFiles');
  }
  if (src === undefined) return { notes };
  const out: MutableSpec = { source: src };
  const helm: Record<string, unknown> = {};
  const releaseName = str(spec.releaseName);
  if (releaseName !== undefined) helm.releaseName = releaseName;
  const chartSpec = asRecord(asRecord(spec.chart).spec);
  const files = list(chartSpec.valuesFiles).filter((f): f is string => typeof f === 'string');
  if (files.length > 0) helm.valuesFiles = files;
  const valuesFrom = list(spec.valuesFrom).map(asRecord);
  if (valuesFrom.length > 0)
    helm.valuesFrom = valuesFrom.map((v) => ({
      kind: v.kind === 'Secret' ? 'Secret' : 'ConfigMap',
      name: String(v.name ?? ''),
      ...(str(v.valuesKey) === undefined ? {} : { valuesKey: v.valuesKey }),
      ...(str(v.targetPath) === undefined ? {} : { targetPath: v.targetPath }),
      ...(v.optional === true ? { optional: true } : {}),
    }));
  const values = asRecord(spec.values);
  if (Object.keys(values).length > 0) helm.values = values;
  const post = list(spec.postRenderers)
    .map(asRecord)
    .filter((p) => p.kustomize !== undefined);
  if (post.length > 0)
    helm.postRenderers = post.map((p) => {
      const k = asRecord(p.kustomize);
      return {
        kustomize: {
          ...(k.patches === undefined ? {} : { patches: list(k.patches) }),
          ...(k.images === undefined ? {} : { images: list(k.images) }),
        },
      };
    });
  const render: {
    -readonly [K in keyof NonNullable<ReleaseSpec['render']>]: NonNullable<ReleaseSpec['render']>[K];
  } = { type: 'Helm', ...(Object.keys(helm).length > 0 ? { helm: helm as never } : {}) };
  const targetNamespace = str(spec.targetNamespace);
  if (targetNamespace !== undefined) render.targetNamespace = targetNamespace;
  out.render = render;
  common(spec, out, note);
  // Flux's upgrade remediation by rollback is convoy's failurePolicy: after the timeout, the last healthy render.
  const remediation = asRecord(asRecord(spec.upgrade).remediation);
  if (
    remediation.strategy === 'rollback' ||
    (remediation.retries !== undefined && remediation.strategy !== 'uninstall')
  )
    out.failurePolicy = { deadline: str(spec.timeout) ?? '5m', rollback: 'OnFailure' };
  else
    note(
      'spec.upgrade.remediation',
      'no rollback asked for; to have convoy roll back by itself, add failurePolicy: {deadline: 5m, rollback: OnFailure}',
    );
  for (const part of ['install', 'upgrade'] as const) {
    const settings = asRecord(spec[part]);
    for (const [k, v] of Object.entries(settings)) {
      if (k === 'remediation' && part === 'upgrade') continue;
      note(`spec.${part}.${k}`, installAction(k, v));
    }
  }
  for (const [k, action] of Object.entries(HELM_RELEASE_ACTIONS))
    if (spec[k] !== undefined) note(`spec.${k}`, action);
  return { release: release(name, opts.namespace ?? namespace, out), notes };
}

/** What to do instead of each HelmRelease field convoy does not carry over. */
const HELM_RELEASE_ACTIONS: Readonly<Record<string, string>> = {
  test: 'not carried over: convoy skips test hooks; run `helm test` yourself, or make the test a PostSync hook Job',
  uninstall:
    'not carried over: deleting the Release deletes its objects (uninstall hooks run); its options have no equivalent',
  driftDetection:
    'not carried over: convoy always detects drift; set syncPolicy.selfHeal: true to correct it',
  maxHistory: 'not carried over: set historyLimit',
  storageNamespace: 'not carried over: convoy keeps its state in the Release; nothing to set',
};

/** What to do instead of one setting of a HelmRelease's spec.install or spec.upgrade. */
function installAction(key: string, value: unknown): string {
  switch (key) {
    case 'createNamespace':
      return value === true
        ? 'not carried over: create the namespace first (kubectl create namespace), or put the Namespace object in the render'
        : 'not carried over: nothing to set';
    case 'crds':
      return `${String(value)}: not carried over: convoy applies the chart's crds/ on install and on every upgrade (as CreateReplace); move them out of the chart to skip them`;
    case 'remediation':
      return 'not carried over: convoy retries a failed sync by itself; to roll back, set failurePolicy: {deadline: 5m, rollback: OnFailure}';
    case 'timeout':
      return "not carried over: the rollout deadline is failurePolicy.deadline, health's healthAssessment.deadline";
    case 'disableWait':
    case 'disableWaitForJobs':
      return 'not carried over: convoy always waits for health; set healthAssessment.deadline to bound it';
    case 'disableHooks':
      return "not carried over: convoy runs the chart's hooks; remove the hook annotations to skip them";
    default:
      return 'not carried over: convoy has no such setting; remove it';
  }
}

/** What both kinds start from (beginImport), and the namespace of the object, Flux's own by default. */
function begin(d: Doc) {
  const begun = beginImport(d);
  return { ...begun, namespace: str(begun.meta.namespace) ?? 'flux-system' };
}

/** interval, suspend, serviceAccountName, kubeConfig, dependsOn: shared by both kinds. */
function common(spec: Readonly<Record<string, unknown>>, out: MutableSpec, note: Note): void {
  const interval = str(spec.interval);
  out.syncPolicy = { mode: 'Auto', prune: true, ...(interval === undefined ? {} : { interval }) };
  if (spec.suspend === true) out.suspend = true;
  const sa = str(spec.serviceAccountName);
  if (sa !== undefined) out.serviceAccountName = sa;
  if (spec.kubeConfig !== undefined)
    note(
      'spec.kubeConfig',
      'another cluster: create a Cluster with that kubeconfig Secret and set cluster.name (docs/reference/cluster.md)',
    );
  if (spec.dependsOn !== undefined)
    note('spec.dependsOn', 'not carried over: convoy orders objects within a Release by sync waves');
  if (spec.timeout !== undefined && out.failurePolicy === undefined)
    note('spec.timeout', 'convoy bounds each step itself; the rollout deadline is failurePolicy.deadline');
}

const GIT_REPOSITORY_ACTIONS: Readonly<Record<string, string>> = {
  ignore: 'not carried over: move the ignored files out of the path (convoy reads every file under it)',
  include: 'not carried over: make a Release for the included repository',
  verify: 'not carried over: convoy does not verify commit signatures; pin ref.commit to a verified commit',
  recurseSubmodules:
    'not carried over: convoy does not fetch submodules; vendor their files into the repository',
  proxySecretRef: "not carried over: set HTTPS_PROXY in the controller-manager's environment",
};

const OCI_REPOSITORY_ACTIONS: Readonly<Record<string, string>> = {
  layerSelector: 'not carried over: push the artifact with `convoy push artifact` (one layer of manifests)',
  verify: 'not carried over: convoy does not verify signatures; pin ref.digest to a verified digest',
  provider:
    'not carried over: give the Release a Secret with registry credentials (source.oci.secretRef) instead of a cloud identity',
  ignore: 'not carried over: leave the ignored files out of the artifact, or narrow source.oci.path',
};

/** A Flux source reference (GitRepository or OCIRepository) as convoy's source; notes what it cannot read. */
function sourceOf(
  ref: Readonly<Record<string, unknown>>,
  namespace: string,
  path: string | undefined,
  lookup: SourceLookup,
  note: Note,
  field: string,
): ReleaseSpec['source'] | undefined {
  const kind = str(ref.kind);
  const name = str(ref.name) ?? '';
  const src = kind === undefined ? undefined : lookup(kind, name, str(ref.namespace) ?? namespace);
  if (src === undefined) {
    note(
      field,
      `${kind ?? 'source'} ${name} is not among the input files; nothing imported (pass its file too)`,
    );
    return undefined;
  }
  const s = asRecord(src.spec);
  const url = str(s.url);
  const secret = str(asRecord(s.secretRef).name);
  const cleanPath = path === undefined ? undefined : path.replace(/^\.\//, '').replace(/\/$/, '');
  const withPath =
    cleanPath === undefined || cleanPath === '' || cleanPath === '.' ? {} : { path: cleanPath };
  if (str(ref.namespace) !== undefined && ref.namespace !== namespace)
    note(
      field,
      `the source lives in namespace ${String(ref.namespace)}; a Release reads Secrets of its own namespace only`,
    );
  switch (kind) {
    case 'GitRepository': {
      if (url === undefined) {
        note(field, `GitRepository ${name} has no spec.url; nothing imported`);
        return undefined;
      }
      const r = fluxGitRef(s.ref);
      if (r.kind === 'unsupported') note(`${field} → GitRepository ${name}`, r.note);
      for (const [k, action] of Object.entries(GIT_REPOSITORY_ACTIONS))
        if (s[k] !== undefined) note(`GitRepository ${name} spec.${k}`, action);
      return {
        git: {
          url,
          ...(r.kind === 'ok' && r.ref !== undefined ? { ref: r.ref } : {}),
          ...withPath,
          ...(secret === undefined ? {} : { secretRef: { name: secret } }),
        },
      };
    }
    case 'OCIRepository': {
      if (url === undefined) {
        note(field, `OCIRepository ${name} has no spec.url; nothing imported`);
        return undefined;
      }
      const r = asRecord(s.ref);
      // Flux's ref has convoy's fields (digest beats semver beats tag, as in Flux).
      const digest = str(r.digest);
      const semver = str(r.semver);
      const tag = str(r.tag);
      const ref =
        digest !== undefined
          ? { digest }
          : semver !== undefined
            ? { semver }
            : tag !== undefined
              ? { tag }
              : undefined;
      const certSecret = str(asRecord(s.certSecretRef).name);
      for (const [k, action] of Object.entries(OCI_REPOSITORY_ACTIONS))
        if (s[k] !== undefined) note(`OCIRepository ${name} spec.${k}`, action);
      return {
        oci: {
          url,
          ...(ref === undefined ? {} : { ref }),
          ...withPath,
          ...(secret === undefined ? {} : { secretRef: { name: secret } }),
          ...(certSecret === undefined ? {} : { certSecretRef: { name: certSecret } }),
          ...(s.insecure === true ? { insecure: true } : {}),
        },
      };
    }
    default:
      note(field, `${kind} ${name}: convoy reads git, OCI and inline sources; nothing imported`);
      return undefined;
  }
}
