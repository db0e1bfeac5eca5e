// convoy import by example: sample Argo CD Applications and Flux objects (examples/import/) in, the exact
// Releases out, and a note for each field that could not be carried over. Each imported spec is
// checked against the Release schema (what the API server would accept).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { parseAllDocuments } from 'yaml';
import { ReleaseSpecSchema } from '../api/index.ts';
import { type Doc, type ImportResult, importDocs } from './index.ts';

const docs = (file: string): Doc[] =>
  parseAllDocuments(readFileSync(new URL(`../../examples/import/${file}`, import.meta.url), 'utf8')).map(
    (d) => d.toJS() as Doc,
  );
/** Where each imported Release lands, as namespace/name, in import order. */
const placesOf = (r: ImportResult) => r.releases.map((x) => `${x.metadata.namespace}/${x.metadata.name}`);
const byName = (r: ImportResult, name: string) => r.releases.find((x) => x.metadata.name === name);
const notesOf = (r: ImportResult, object: string) =>
  r.notes.filter((n) => n.object === object).map((n) => `${n.field}: ${n.message}`);
/** Schema errors of a spec (the structural part of what the API server checks), as paths. */
const validateReleaseSpec = (spec: unknown) =>
  [...Value.Errors(ReleaseSpecSchema, spec)].map((e) => `${e.instancePath}: ${e.message}`);
const HEALTH = {
  globalRuleSetSelector: {
    matchExpressions: [{ key: 'convoy.kumodo.io/rules', operator: 'In', values: ['default', 'library'] }],
  },
};

describe('import Argo CD Applications', () => {
  const r = importDocs(docs('argocd-applications.yaml'));
  it('imports each Application as a Release in its destination namespace', () =>
    assert.deepEqual(placesOf(r), [
      'guestbook/guestbook',
      'shop/shop-web',
      'ops/overlay',
      'ingress/ingress',
    ]));
  it('a plain directory: git source at the default branch, automated sync → Auto with prune and selfHeal', () =>
    assert.deepEqual(byName(r, 'guestbook')?.spec, {
      source: { git: { url: 'https://github.com/argoproj/argocd-example-apps.git', path: 'guestbook' } },
      healthAssessment: HEALTH,
      syncPolicy: { mode: 'Auto', prune: true, selfHeal: true, interval: '3m' },
    }));
  it('says what it could not carry over for the plain directory', () => {
    const n = notesOf(r, 'Application argocd/guestbook');
    assert.ok(n.some((x) => x.startsWith('spec.syncPolicy.syncOptions: CreateNamespace=true')));
    assert.ok(n.some((x) => x.startsWith('spec.source: Argo CD detects Kustomize and Helm')));
    assert.ok(n.some((x) => x.startsWith('spec: Argo CD never rolls back by itself')));
    assert.ok(!n.some((x) => x.includes('ServerSideApply')), 'SSA is what convoy does anyway');
  });
  it('a Helm chart in git on another cluster: values, parameters, valueFiles, the tag, the Cluster', () => {
    assert.deepEqual(byName(r, 'shop-web')?.spec, {
      source: {
        git: { url: 'https://git.example.com/shop/deploy.git', ref: { tag: 'v1.4.2' }, path: 'charts/web' },
      },
      healthAssessment: HEALTH,
      render: {
        type: 'Helm',
        helm: {
          releaseName: 'web',
          valuesFiles: ['values-prod.yaml'],
          values: { replicaCount: 3, image: { tag: '1.4.2' }, ingress: { enabled: true } },
        },
        targetNamespace: 'shop',
      },
      cluster: { name: 'prod-eu' },
      syncPolicy: { mode: 'Manual', prune: false, interval: '3m' },
    });
    const n = notesOf(r, 'Application argocd/shop-web');
    assert.ok(
      n.some((x) => x.startsWith('spec.source.targetRevision: targetRevision "v1.4.2" was taken as a tag')),
    );
    assert.ok(
      n.some((x) =>
        x.startsWith('spec.destination: another cluster (prod-eu): create a Cluster named prod-eu'),
      ),
    );
    assert.ok(n.some((x) => x.startsWith('spec.syncPolicy.automated: absent: the Release is Manual')));
    assert.ok(n.some((x) => x.startsWith('spec.project: project shop')));
  });
  it('a Kustomize overlay: render.type Kustomize, its inline kustomize settings are notes', () => {
    assert.deepEqual(byName(r, 'overlay')?.spec.render, { type: 'Kustomize' });
    assert.deepEqual(byName(r, 'overlay')?.spec.source.git?.ref, { branch: 'main' });
    assert.ok(
      notesOf(r, 'Application argocd/overlay').some((x) => x.startsWith('spec.source.kustomize.namePrefix')),
    );
  });
  it('a chart from a Helm repository: source.chart with the version range, values, automated → Auto', () =>
    assert.deepEqual(byName(r, 'ingress')?.spec, {
      source: {
        chart: {
          url: 'https://kubernetes.github.io/ingress-nginx',
          name: 'ingress-nginx',
          version: '4.11.*',
        },
      },
      healthAssessment: HEALTH,
      render: {
        type: 'Helm',
        helm: { values: { controller: { replicaCount: 2 } } },
        targetNamespace: 'ingress',
      },
      syncPolicy: { mode: 'Auto', prune: false, interval: '3m' },
    }));
  it('an OCI chart repository is not carried over and says what to do', () => {
    const oci = importDocs([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'x', namespace: 'argocd' },
        spec: { source: { repoURL: 'registry-1.docker.io/bitnamicharts', chart: 'redis' }, destination: {} },
      },
    ]);
    assert.deepEqual(oci.releases, []);
    assert.match(oci.notes[0]?.message ?? '', /OCI chart repository is not carried over/);
  });
  it('every imported spec is a valid Release spec', () => {
    for (const x of r.releases) assert.deepEqual(validateReleaseSpec(x.spec), [], x.metadata.name);
  });
  it('--namespace puts every Release in one namespace', () =>
    assert.deepEqual(
      importDocs([...docs('argocd-applications.yaml'), ...docs('flux.yaml')], {
        namespace: 'apps',
      }).releases.map((x) => x.metadata.namespace),
      ['apps', 'apps', 'apps', 'apps', 'apps', 'apps', 'apps', 'apps'],
    ));
});

describe('import Flux', () => {
  const r = importDocs(docs('flux.yaml'));
  it('imports Kustomizations and HelmReleases, reading their sources among the documents', () =>
    assert.deepEqual(placesOf(r), ['apps/podinfo', 'apps/from-oci', 'apps/podinfo-chart', 'apps/redis']));
  it('a Kustomization over a GitRepository: branch, path, secret, interval, prune, targetNamespace, substitute', () =>
    assert.deepEqual(byName(r, 'podinfo')?.spec, {
      source: {
        git: {
          url: 'https://github.com/stefanprodan/podinfo',
          ref: { branch: 'master' },
          path: 'kustomize',
          secretRef: { name: 'git-creds' },
        },
      },
      healthAssessment: HEALTH,
      render: {
        type: 'Kustomize',
        targetNamespace: 'podinfo',
        substitute: { cluster_env: 'prod', replicas: '2' },
      },
      syncPolicy: { mode: 'Auto', prune: true, interval: '10m' },
    }));
  it('a Kustomization over an OCIRepository: the tag, suspend, prune off', () =>
    assert.deepEqual(byName(r, 'from-oci')?.spec, {
      source: { oci: { url: 'oci://ghcr.io/example/manifests', ref: { tag: '1.0.0' } } },
      healthAssessment: HEALTH,
      render: { type: 'Kustomize' },
      syncPolicy: { mode: 'Auto', prune: false, interval: '5m' },
      suspend: true,
    }));
  it('a HelmRelease: chart path in git, values, valuesFrom, postRenderers, and rollback remediation → failurePolicy', () => {
    const spec = byName(r, 'podinfo-chart')?.spec;
    assert.deepEqual(spec?.source, {
      git: {
        url: 'https://github.com/stefanprodan/podinfo',
        ref: { branch: 'master' },
        path: 'charts/podinfo',
        secretRef: { name: 'git-creds' },
      },
    });
    assert.deepEqual(spec?.render?.helm?.valuesFrom, [
      { kind: 'Secret', name: 'podinfo-values', valuesKey: 'prod.yaml' },
      {
        kind: 'ConfigMap',
        name: 'podinfo-env',
        valuesKey: 'region',
        targetPath: 'env.region',
        optional: true,
      },
    ]);
    assert.equal(spec?.render?.helm?.releaseName, 'podinfo');
    assert.deepEqual(spec?.render?.helm?.values, { replicaCount: 2 });
    assert.deepEqual(spec?.render?.helm?.valuesFiles, ['charts/podinfo/values-prod.yaml']);
    assert.equal(spec?.render?.helm?.postRenderers?.length, 1);
    assert.deepEqual(spec?.failurePolicy, { deadline: '4m', rollback: 'OnFailure' });
    assert.deepEqual(spec?.syncPolicy, { mode: 'Auto', prune: true, interval: '15m' });
  });
  it('a HelmRelease from a HelmRepository: source.chart with the range and the repository Secret', () =>
    assert.deepEqual(byName(r, 'redis')?.spec.source, {
      chart: {
        url: 'https://charts.example.com/stable',
        name: 'redis',
        version: '>=18.0.0 <19.0.0',
        secretRef: { name: 'chart-creds' },
      },
    }));
  it('every imported spec is a valid Release spec', () => {
    for (const x of r.releases) assert.deepEqual(validateReleaseSpec(x.spec), [], x.metadata.name);
  });
  it('a Kustomization whose source is not among the documents is not imported and says why', () => {
    const only = importDocs(docs('flux.yaml').filter((d) => d.kind !== 'GitRepository'));
    assert.equal(byName(only, 'podinfo'), undefined);
    assert.ok(
      notesOf(only, 'Kustomization apps/podinfo').some((x) =>
        x.startsWith('spec.sourceRef: GitRepository podinfo is not among the input files'),
      ),
    );
  });
});

describe('import: other input', () => {
  it('skips what is neither Argo CD nor Flux, with a note', () => {
    const r = importDocs([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'a' } }]);
    assert.deepEqual(r.releases, []);
    assert.deepEqual(r.notes, [
      { object: 'ConfigMap a/x', field: 'kind', message: 'not an Argo CD or Flux object; skipped' },
    ]);
  });
  it('an Application without repoURL imports nothing and says so', () => {
    const r = importDocs([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'x' },
        spec: { source: {} },
      },
    ]);
    assert.deepEqual(r.releases, []);
    assert.equal(r.notes[0]?.field, 'spec.source.repoURL');
  });
});

describe('import: a note only for a field that is there, each saying what to do', () => {
  const app = (source: Record<string, unknown>): Doc => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'a', namespace: 'argocd' },
    spec: { source: { path: 'app', ...source }, destination: { namespace: 'a' } },
  });
  const fieldsOf = (d: Doc) => importDocs([d]).notes.map((n) => n.field);
  const table: [string, Doc, readonly string[], readonly string[]][] = [
    [
      'an https repository and no directory: neither a credentials nor a recurse note',
      app({ repoURL: 'https://github.com/example/app.git' }),
      [],
      ['spec.source.repoURL', 'spec.source.directory.recurse'],
    ],
    [
      'directory without recurse: the recurse note',
      app({ repoURL: 'https://github.com/example/app.git', directory: { exclude: 'x.yaml' } }),
      ['spec.source.directory.recurse', 'spec.source.directory.exclude'],
      ['spec.source.repoURL'],
    ],
    [
      'directory with recurse: nothing to say about it',
      app({ repoURL: 'https://github.com/example/app.git', directory: { recurse: true } }),
      [],
      ['spec.source.directory.recurse'],
    ],
    [
      'an SSH repository: the key it needs',
      app({ repoURL: 'git@github.com:example/app.git' }),
      ['spec.source.repoURL'],
      [],
    ],
    [
      'an ssh:// repository: the key it needs',
      app({ repoURL: 'ssh://git@git.example.com/app.git' }),
      ['spec.source.repoURL'],
      [],
    ],
    [
      'a chart repository: no credentials note',
      app({ repoURL: 'https://charts.example.com', chart: 'web', targetRevision: '1.2.3' }),
      [],
      ['spec.source.repoURL'],
    ],
  ];
  for (const [name, doc, present, absent] of table) {
    it(name, () => {
      const fields = fieldsOf(doc);
      for (const f of present) assert.ok(fields.includes(f), `${f} noted: ${fields.join(', ')}`);
      for (const f of absent) assert.ok(!fields.includes(f), `${f} not noted: ${fields.join(', ')}`);
    });
  }

  it("a HelmRelease's install, upgrade and test settings: one note each, with the action", () => {
    const r = importDocs([
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'web', namespace: 'apps' },
        spec: {
          chart: { spec: { chart: './charts/web', sourceRef: { kind: 'GitRepository', name: 'repo' } } },
          install: { createNamespace: true, crds: 'CreateReplace', remediation: { retries: 3 } },
          upgrade: { remediation: { strategy: 'rollback' }, cleanupOnFail: true },
          test: { enable: true },
        },
      },
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: 'repo', namespace: 'apps' },
        spec: { url: 'https://github.com/example/web', ref: { branch: 'main' } },
      },
    ]);
    assert.equal(r.releases.length, 1);
    const n = notesOf(r, 'HelmRelease apps/web');
    const find = (field: string) => n.find((x) => x.startsWith(`${field}: `));
    assert.match(find('spec.install.createNamespace') ?? '', /create the namespace first/);
    assert.match(
      find('spec.install.crds') ?? '',
      /^spec\.install\.crds: CreateReplace: .*applies the chart's crds\//,
    );
    assert.match(find('spec.install.remediation') ?? '', /set failurePolicy/);
    assert.match(find('spec.upgrade.cleanupOnFail') ?? '', /remove it/);
    assert.equal(find('spec.upgrade.remediation'), undefined, 'rollback remediation is carried over');
    assert.match(find('spec.test') ?? '', /PostSync hook Job/);
  });

  it('no note of the examples ends at "not carried over" without saying what to do', () => {
    const all = importDocs([...docs('argocd-applications.yaml'), ...docs('flux.yaml')]);
    for (const n of all.notes)
      assert.doesNotMatch(n.message, /not carried over\.?$/, `${n.object} ${n.field}`);
  });
});
