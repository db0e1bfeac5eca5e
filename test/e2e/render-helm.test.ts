// render.type Helm end to end, with the real helm built from its Go module, on the real control plane
// with both convoy processes: a chart directory in git rolls out (release name, targetNamespace,
// valuesFiles, inline values, a post-renderer, .Capabilities from the target's discovery, crds/ before
// the custom resource that needs them, chart hooks as PreSync/PostSync hooks, test hooks left out) and
// an interval reconcile of the unchanged chart runs no helm process; an upgrade whose pods never get
// Ready rolls back, ConfigMap included; a labelled valuesFrom Secret that changes is a new render at
// once (the Release's interval is an hour); bad input (a template error with its file and line, a
// values type error, a missing valuesFrom Secret, no chart, a missing helm binary) is a Ready=False
// condition and an Event naming the field, with nothing applied; a chart whose charts/ is not in git has
// its dependency built from a chart repository. helm runs through a wrapper that counts its runs per
// release name. `convoy render`'s code gives the controller's renderRef.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LABEL_WATCH } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { initExampleRepo, TOOL_EXAMPLES, toolExampleRelease } from '../../src/cli/dev-example.ts';
import { renderFiles } from '../../src/cli/local-render.ts';
import { GitSource } from '../../src/render/git/source.ts';
import { startHelmRepo } from '../../src/testenv/helm-repo.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { HELM_MIGRATE_HOOK, HELM_TEST_POD } from '../support/helm-chart.ts';
import {
  gitRelease as bareGitRelease,
  condition,
  getInventory,
  releaseRef,
  waitForReason,
} from '../support/release.ts';
import { events, gitRelease, inRolloutScenario, liveConfigMap, liveTag } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

/** helm as the controller-manager runs it: a script that notes the release name, then runs helm. */
const WRAPPER_DIR = join(tmpdir(), `convoy-helm-e2e-${process.pid}`);
const HELM = join(WRAPPER_DIR, 'helm');
const RUNS = join(WRAPPER_DIR, 'runs');

const env = convoySystemPerFile({
  identity: 'render-helm',
  managerArgs: ['--helm-binary', HELM],
  setUp: async () => {
    const tools = await ensureTools();
    await mkdir(WRAPPER_DIR, { recursive: true });
    await writeFile(RUNS, '');
    // PATH is empty in helm's environment: only builtins and absolute paths.
    await writeFile(HELM, `#!/bin/sh\necho "$2" >> ${RUNS}\nexec ${join(tools, 'helm')} "$@"\n`);
    await chmod(HELM, 0o755);
  },
});

/** How often helm rendered the release `name` (`helm template NAME …`). */
async function helmRuns(name: string): Promise<number> {
  return (await readFile(RUNS, 'utf8')).split('\n').filter((l) => l === name).length;
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

/** A chart: a ConfigMap and a Deployment reading it, a Widget, two install/upgrade hooks and a test. */
function chart(version: string, values: { tag: string; ready: boolean; color: string }, withCrd = false) {
  const files: Record<string, string> = {
    'app/Chart.yaml': `apiVersion: v2\nname: web\nversion: ${version}\n`,
    'app/values.yaml': `tag: ${values.tag}\nready: ${values.ready}\ncolor: ${values.color}\nreplicas: 1\n`,
    'app/values-prod.yaml': 'tier: prod\n',
    'app/templates/config.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  color: {{ .Values.color | quote }}
  tag: {{ .Values.tag | quote }}
  tier: {{ .Values.tier | default "none" | quote }}
  namespace: {{ .Release.Namespace | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  convoyApi: {{ .Capabilities.APIVersions.Has "convoy.kumodo.io/v1alpha1" | quote }}
`,
    'app/templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}
        {{- if not .Values.ready }}
        ${TEST_LABEL_NEVER_READY}: "true"
        {{- end }}
      annotations: {example.com/tag: {{ .Values.tag | quote }}}
    spec:
      containers:
      - name: main
        image: "registry.invalid/app:{{ .Values.tag }}"
        envFrom: [{configMapRef: {name: {{ .Release.Name }}-config}}]
`,
    'app/templates/migrate.yaml': HELM_MIGRATE_HOOK,
    // As argo-cd's chart has it: a pre-install ServiceAccount and a lower-weight Job that runs under it.
    'app/templates/secret-init.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
  name: secret-init
  annotations: {helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-weight: "-5"}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: secret-init
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-1"
    helm.sh/hook-delete-policy: before-hook-creation
spec:
  backoffLimit: 0
  template:
    spec:
      serviceAccountName: secret-init
      restartPolicy: Never
      containers: [{name: init, image: registry.invalid/init:1}]
`,
    'app/templates/notify.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: notify
  annotations: {helm.sh/hook: "post-install,post-upgrade"}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: notify, image: registry.invalid/notify:1}]
`,
    'app/templates/tests/smoke.yaml': HELM_TEST_POD,
  };
  // The CRD is cluster-scoped: only one test's chart may own it.
  if (withCrd) {
    files['app/crds/widgets.yaml'] = CRD;
    files['app/templates/widget.yaml'] = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}-widget
spec: {size: 3}
`;
  }
  return files;
}

const POST_RENDER = {
  kustomize: {
    patches: [
      {
        target: { kind: 'Deployment' },
        patch: '- {op: add, path: /metadata/annotations, value: {example.com/post-rendered: "yes"}}',
      },
    ],
  },
};

type LiveAnnotated = { metadata: { annotations?: Record<string, string> } };

describe('render.type Helm', { concurrency: true }, () => {
  test('a chart rolls out, an interval reconcile runs no helm, and an upgrade that never gets Ready rolls back with its ConfigMap', () =>
    inRolloutScenario(env, 'helm-roll', 'helm-roll', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const sha1 = await repo.commit(chart('1.0.0', { tag: 'v1', ready: true, color: 'blue' }, true));
      const render = {
        type: 'Helm' as const,
        targetNamespace: ns,
        helm: {
          releaseName: 'shop',
          valuesFiles: ['values-prod.yaml'],
          values: { color: 'teal' },
          postRenderers: [POST_RENDER],
        },
      };
      // The deadline covers the PreSync hooks too (two weights, one after the other): long enough for
      // them on a loaded machine, short enough for commit 2's rollback.
      const failurePolicy = { deadline: '30s', rollback: 'OnFailure' as const };
      await client.create(gitRelease(ns, 'app', repo, { render, failurePolicy }));
      const r1 = await waitForRollout(
        'Succeeded(commit 1)',
        (r) => r.state === 'Succeeded' && r.revision === sha1,
      );
      const R1 = r1.status?.rollout?.renderRef ?? '';

      const version = await client.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
      assert.deepEqual((await liveConfigMap(client, ns, 'shop-config'))?.data, {
        color: 'teal', // values over values.yaml
        tag: 'v1',
        tier: 'prod', // valuesFiles
        namespace: ns, // targetNamespace is Helm's namespace
        kube: version.gitVersion, // --kube-version from the target
        convoyApi: 'true', // --api-versions from the target's discovery
      });
      assert.equal(await liveTag(client, ns, 'shop'), 'v1');
      const deploy = await client.get<LiveAnnotated>({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: ns,
        name: 'shop',
      });
      assert.equal(
        deploy?.metadata.annotations?.['example.com/post-rendered'],
        'yes',
        'the post-renderer ran',
      );
      // crds/ went in first: the Widget that needs the CRD is live.
      assert.ok(
        await client.get({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          namespace: ns,
          name: 'shop-widget',
        }),
      );
      const inv = await getInventory(client, ns, 'app');
      const hooks = new Map((inv?.hooks ?? []).map((h) => [h.name, h]));
      assert.equal(hooks.get('migrate')?.phase, 'PreSync', 'pre-install,pre-upgrade → PreSync');
      assert.equal(hooks.get('notify')?.phase, 'PostSync', 'post-install,post-upgrade → PostSync');
      assert.equal(hooks.get('migrate')?.state, 'Succeeded');
      assert.equal(hooks.has('smoke'), false, 'test hooks are left out');
      // The pre-install ServiceAccount went in before the Job that runs under it, and the weight -1 Job
      // finished before the weight 0 one was created.
      assert.equal(hooks.get('secret-init')?.state, 'Succeeded');
      assert.ok(
        inv?.entries?.some(
          (e) => e.kind === 'ServiceAccount' && e.name === 'secret-init' && e.renderRef === R1,
        ),
        'the hook ServiceAccount is recorded with R',
      );
      const finished = Date.parse(hooks.get('secret-init')?.finishedAt ?? '');
      const created = Date.parse(hooks.get('migrate')?.createdAt ?? '');
      assert.ok(finished <= created, `secret-init finished ${finished}, migrate created ${created}`);

      // The same files rendered here (as `convoy render`/`convoy diff` do) give the controller's renderRef.
      const local = await renderFiles(
        { render },
        await new GitSource({ cacheDir: `${env.work}/helm-local`, allowFileUrls: true }).fetch(
          { url: repo.url, ref: { branch: 'main' }, path: 'app' },
          undefined,
        ),
        { target: client, namespace: ns, name: 'app' },
      );
      assert.equal(local.renderRef, R1);

      // Interval reconciles (every second) of the unchanged chart render from the cache: no helm process.
      const runs = await helmRuns('shop');
      assert.ok(runs >= 1);
      await env.manager.moreReconciles(4);
      assert.equal(await helmRuns('shop'), runs, 'no helm run for an unchanged chart');

      const sha2 = await repo.commit(chart('1.1.0', { tag: 'v2', ready: false, color: 'blue' }, true));
      await waitForRollout('Progressing(commit 2)', (r) => r.state === 'Progressing' && r.revision === sha2);
      await waitFor('commit 2 live', async () => (await liveTag(client, ns, 'shop')) === 'v2');
      assert.equal((await liveConfigMap(client, ns, 'shop-config'))?.data?.tag, 'v2');

      const rb = await waitForRollout('RolledBack(commit 2)', (r) => r.state === 'RolledBack', 120_000);
      assert.equal(rb.status?.lastAttempted?.renderRef, R1);
      // The whole render came back: the old Deployment and the old ConfigMap data.
      assert.equal(await liveTag(client, ns, 'shop'), 'v1');
      assert.equal((await liveConfigMap(client, ns, 'shop-config'))?.data?.tag, 'v1');
    }));

  test('a labelled valuesFrom Secret that changes is a new render at once; targetPath and optional entries', () =>
    inRolloutScenario(env, 'helm-values', 'helm-values', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const sha = await repo.commit(chart('1.0.0', { tag: 'v1', ready: true, color: 'blue' }));
      const secret = (color: string) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'web-values', namespace: ns, labels: { [LABEL_WATCH]: 'true' } },
        stringData: { 'values.yaml': `color: ${color}\n` },
      });
      await client.create(secret('green'));
      const tier = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-tier', namespace: ns },
        data: { tier: 'staging' },
      };
      await client.create(tier);
      await client.create(
        gitRelease(ns, 'app', repo, {
          // No interval reconcile for an hour: only the watch can bring the new values in.
          syncPolicy: { interval: '1h' },
          // Nothing here should roll back; the deadline covers the chart's PreSync hooks.
          failurePolicy: { deadline: '2m', rollback: 'OnFailure' },
          render: {
            type: 'Helm',
            targetNamespace: ns,
            helm: {
              releaseName: 'vals',
              valuesFrom: [
                { kind: 'Secret', name: 'web-values' },
                { kind: 'ConfigMap', name: 'web-tier', valuesKey: 'tier', targetPath: 'tier' },
                { kind: 'Secret', name: 'absent', optional: true },
              ],
            },
          },
        }),
      );
      const r1 = await waitForRollout('Succeeded', (r) => r.state === 'Succeeded' && r.revision === sha);
      const data1 = (await liveConfigMap(client, ns, 'vals-config'))?.data;
      assert.equal(data1?.color, 'green');
      assert.equal(data1?.tier, 'staging');

      await client.replace(secret('purple'));
      const r2 = await waitForRollout(
        'a new render of the same commit',
        (r) => r.state === 'Succeeded' && r.renderRef !== r1.status?.rollout?.renderRef,
      );
      assert.equal(r2.status?.rollout?.revision, sha);
      assert.equal((await liveConfigMap(client, ns, 'vals-config'))?.data?.color, 'purple');
    }));

  test('bad input: a clear RenderFailed condition and Event naming the field, nothing applied', () =>
    inRolloutScenario(env, 'helm-bad', 'helm-bad', async ({ ns, repo }) => {
      const { client } = env;
      const good = chart('1.0.0', { tag: 'v1', ready: true, color: 'blue' });
      const under = (dir: string, files: Record<string, string>) =>
        Object.fromEntries(Object.entries(files).map(([p, t]) => [p.replace(/^app\//, `${dir}/`), t]));
      await repo.commit({
        ...under('template', {
          ...good,
          'app/templates/broken.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.no.such }}\n',
        }),
        ...under('schema', {
          ...good,
          'app/values.schema.json': '{"type": "object", "properties": {"replicas": {"type": "integer"}}}',
        }),
        ...under('secret', good),
        'nochart/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loose}\n',
      });
      const release = (name: string, path: string, helm: Record<string, unknown> = {}): Release => {
        const r = bareGitRelease(ns, name, repo, {
          render: { type: 'Helm', targetNamespace: ns, helm: { releaseName: name, ...helm } },
        });
        return {
          ...r,
          spec: { ...r.spec, source: { git: { url: repo.url, ref: { branch: 'main' }, path } } },
        };
      };
      const cases: { name: string; release: Release; message: RegExp }[] = [
        {
          name: 'tpl',
          release: release('tpl', 'template'),
          message: /helm template: .*web\/templates\/broken\.yaml:4/,
        },
        {
          name: 'schema',
          release: release('schema', 'schema', { values: { replicas: 'three' } }),
          message:
            /spec\.render\.helm\.values replicas: got string, want integer \(values\.schema\.json of chart web\)/,
        },
        {
          name: 'secret',
          release: release('secret', 'secret', { valuesFrom: [{ kind: 'Secret', name: 'nope' }] }),
          message: new RegExp(
            `spec\\.render\\.helm\\.valuesFrom\\[0\\] \\(Secret ${ns}/nope\\): Secret not found`,
          ),
        },
        {
          name: 'nochart',
          release: release('nochart', 'nochart'),
          message: /no Chart\.yaml at the source path: it must be a chart directory/,
        },
        {
          name: 'vfile',
          release: release('vfile', 'secret', { valuesFiles: ['values-missing.yaml'] }),
          message: /spec\.render\.helm\.valuesFiles\[0\]: values-missing\.yaml is not in the chart directory/,
        },
      ];
      for (const c of cases) await client.create(c.release);
      await Promise.all(
        cases.map(async (c) => {
          const r = await waitForReason(client, ns, c.name, 'RenderFailed');
          assert.equal(condition(r, 'Ready')?.status, 'False');
          assert.match(condition(r, 'Ready')?.message ?? '', c.message, c.name);
          assert.doesNotMatch(
            condition(r, 'Ready')?.message ?? '',
            /convoy-helm-/,
            'no work directory shown',
          );
          await waitFor(`${c.name}: the RenderFailed Event`, async () =>
            (await events(client, ns, c.name)).find((e) => c.message.test(e.message ?? '')),
          );
        }),
      );
      const applied = await client.list<{ metadata: { name: string } }>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: ns,
      });
      assert.deepEqual(
        applied.map((c) => c.metadata.name).filter((n) => n !== 'kube-root-ca.crt'),
        [],
        'nothing applied',
      );
      // Their repository goes with the test: they would only fail to fetch from now on.
      for (const c of cases) await client.delete(releaseRef(ns, c.name));
    }));
});

describe('render.type Helm from a chart repository', () => {
  test("a chart in git whose charts/ is .gitignore'd: the controller builds its dependency from the chart repository", () =>
    inRolloutScenario(env, 'helm-deps', 'helm-deps', async ({ ns, repo, waitForRollout }) => {
      const charts = await startHelmRepo();
      try {
        await charts.addChart('cache', '1.4.0', {
          'values.yaml': 'size: small\n',
          'templates/cm.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cache}\ndata: {size: {{ .Values.size | quote }}, version: {{ .Chart.Version | quote }}}\n',
        });
        await repo.commit({
          'app/.gitignore': 'charts/\n',
          'app/Chart.yaml': `apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: cache\n    version: 1.x\n    repository: ${charts.url}\n`,
          'app/values.yaml': 'cache: {size: large}\n',
          'app/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {a: "1"}\n',
        });
        await env.client.create(
          gitRelease(ns, 'app', repo, {
            render: { type: 'Helm', targetNamespace: ns, helm: { releaseName: 'deps' } },
          }),
        );
        await waitForRollout('Succeeded', (r) => r.state === 'Succeeded');
        assert.deepEqual((await liveConfigMap(env.client, ns, 'cache'))?.data, {
          size: 'large',
          version: '1.4.0',
        });
        assert.ok((await liveConfigMap(env.client, ns, 'app')) !== undefined);
      } finally {
        await charts.stop();
      }
    }));

  test('basic auth and a CA; a semver range picks the newest matching version, which is the revision; a version or chart not found is SourceFailed', () =>
    inRolloutScenario(env, 'helm-repo', 'helm-repo', async ({ ns, waitForRollout }) => {
      const { client } = env;
      const repo = await startHelmRepo({ tls: true, auth: { username: 'ci', password: 's3cret' } });
      try {
        const files = Object.fromEntries(
          Object.entries(chart('0.0.0', { tag: 'v1', ready: true, color: 'blue' }))
            .filter(([p]) => p !== 'app/Chart.yaml')
            .map(([p, t]) => [p.replace(/^app\//, ''), t]),
        );
        for (const v of ['1.0.0', '1.2.0', '2.0.0']) await repo.addChart('web', v, files);
        const secret = (name: string, stringData: Record<string, string>) => ({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: ns },
          stringData,
        });
        await client.create(secret('repo-auth', { username: 'ci', password: 's3cret' }));
        await client.create(secret('repo-ca', { 'ca.crt': repo.caPem ?? '' }));
        const fromRepo = (name: string, chartSpec: Record<string, unknown>): Release => {
          // The chart's two hooks run in sequence before Succeeded: a deadline of minutes, not the
          // rollback tests' 8 s, which a loaded machine's hook Jobs outlast (this test rolls nothing back).
          const r = gitRelease(ns, name, { url: 'file:///unused' } as never, {
            render: { type: 'Helm', targetNamespace: ns, helm: { releaseName: name } },
            failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
          });
          return {
            ...r,
            spec: {
              ...r.spec,
              source: {
                chart: {
                  url: repo.url,
                  secretRef: { name: 'repo-auth' },
                  certSecretRef: { name: 'repo-ca' },
                  ...chartSpec,
                } as NonNullable<Release['spec']['source']['chart']>,
              },
            },
          };
        };
        await client.create(fromRepo('app', { name: 'web', version: '^1' }));
        const r1 = await waitForRollout('Succeeded(1.2.0)', (r) => r.state === 'Succeeded');
        assert.match(r1.status?.rollout?.revision ?? '', /^1\.2\.0@sha256:[0-9a-f]{64}$/);
        assert.equal((await liveConfigMap(client, ns, 'app-config'))?.data?.tag, 'v1');

        await repo.addChart('web', '1.3.0', {
          ...files,
          'values.yaml': 'tag: v13\nready: true\ncolor: blue\nreplicas: 1\n',
        });
        const r2 = await waitForRollout(
          'Succeeded(1.3.0)',
          (r) => r.state === 'Succeeded' && r.revision?.startsWith('1.3.0@') === true,
        );
        assert.notEqual(r2.status?.rollout?.renderRef, r1.status?.rollout?.renderRef);
        assert.equal((await liveConfigMap(client, ns, 'app-config'))?.data?.tag, 'v13');

        const bad: { name: string; spec: Record<string, unknown>; message: RegExp }[] = [
          {
            name: 'nover',
            spec: { name: 'web', version: '^9' },
            message:
              /spec\.source\.chart\.version: no version of chart web in https:\/\/127\.0\.0\.1:\d+\/charts\/ matches "\^9"/,
          },
          {
            name: 'nochart',
            spec: { name: 'nope' },
            message: /spec\.source\.chart\.name: no chart "nope" in .*\(charts: web\)/,
          },
          {
            name: 'noauth',
            spec: { name: 'web', secretRef: { name: 'repo-ca' } },
            message: /spec\.source\.chart\.secretRef: 127\.0\.0\.1:\d+ answered 401/,
          },
        ];
        for (const b of bad) await client.create(fromRepo(b.name, b.spec));
        for (const b of bad) {
          const r = await waitForReason(client, ns, b.name, 'SourceFailed');
          assert.match(condition(r, 'Ready')?.message ?? '', b.message);
          assert.doesNotMatch(condition(r, 'Ready')?.message ?? '', /s3cret/);
          await waitFor(`${b.name}: the Event`, async () =>
            (await events(client, ns, b.name)).find((e) => b.message.test(e.message ?? '')),
          );
          assert.equal(await liveConfigMap(client, ns, `${b.name}-config`), undefined, 'nothing applied');
        }
        for (const name of ['app', ...bad.map((b) => b.name)]) await client.delete(releaseRef(ns, name));
      } finally {
        await repo.stop();
      }
    }));
});

describe('the Helm and Kustomize examples', () => {
  test('examples/helm and examples/kustomize roll out as `convoy dev` creates them', async () => {
    const ns = 'tool-examples';
    await env.namespace(ns);
    for (const app of TOOL_EXAMPLES) {
      const url = await initExampleRepo(join(env.work, `example-${app}`), app);
      const release = await toolExampleRelease(app, url, ns);
      await env.client.create(release);
      const name = release.metadata.name ?? '';
      const done = await env.waitForRelease(ns, name, `${app} example Succeeded`, (r) =>
        ['Succeeded', 'Failed', 'RolledBack'].includes(r.status?.rollout?.state ?? ''),
      );
      assert.equal(done.status?.rollout?.state, 'Succeeded', `${app}: ${JSON.stringify(done.status)}`);
    }
    const hello = await liveConfigMap(env.client, ns, 'hello-config');
    assert.equal(hello?.data?.GREETING, 'hello from convoy dev', 'the Helm example with values-dev.yaml');
    const cms = await env.client.list<{ metadata: { name: string } }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
    });
    assert.ok(
      cms.some((c) => /^greeter-config-[a-z0-9]{10}$/.test(c.metadata.name)),
      'the Kustomize example with its hashed ConfigMap',
    );
  });
});

describe('render.type Helm without a helm binary', () => {
  test('RenderFailed saying how to get helm; nothing applied; back once the binary is there', () =>
    inRolloutScenario(env, 'helm-nobin', 'helm-nobin', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const sha = await repo.commit(chart('1.0.0', { tag: 'v1', ready: true, color: 'blue' }));
      const away = `${HELM}.away`;
      await rename(HELM, away);
      try {
        await client.create(
          gitRelease(ns, 'app', repo, {
            render: { type: 'Helm', targetNamespace: ns, helm: { releaseName: 'nobin' } },
          }),
        );
        const r = await waitForReason(client, ns, 'app', 'RenderFailed');
        const message = condition(r, 'Ready')?.message ?? '';
        assert.match(message, new RegExp(`the helm binary was not found \\(${HELM}\\): .*--helm-binary`));
        await waitFor('the Event', async () =>
          (await events(client, ns, 'app')).find((e) =>
            /the helm binary was not found/.test(e.message ?? ''),
          ),
        );
        assert.equal(await liveConfigMap(client, ns, 'nobin-config'), undefined, 'nothing applied');
      } finally {
        await rename(away, HELM);
      }
      await waitForRollout(
        'Succeeded once helm is back',
        (r) => r.state === 'Succeeded' && r.revision === sha,
      );
    }));
});
