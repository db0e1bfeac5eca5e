// render.type Kustomize end to end, with the real kustomize built from its Go module, on the real
// control plane with both convoy processes: an overlay (base, component, patch, replacement,
// configMapGenerator) rolls out; a generator change whose pods never get Ready rolls back to the old
// hashed ConfigMap, which the live Deployment names again; a kustomization error and a remote base
// are RenderFailed conditions and Events that apply nothing, and a base outside the source path says
// which path to set. `convoy render`'s code gives the
// controller's renderRef.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderFiles } from '../../src/cli/local-render.ts';
import { GitSource } from '../../src/render/git/source.ts';
import { condition, getInventory, waitForReady, waitForReason } from '../support/release.ts';
import {
  deployment,
  events,
  gitRelease,
  inRolloutScenario,
  liveConfigMap,
  reached,
} from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'render-kustomize' });

/** The Deployment takes its environment from the generated ConfigMap `cfg` (renamed with its hash). */
function web(tag: string, pods: 'healthy' | 'never-ready'): string {
  return deployment('web', tag, pods).replace(
    'containers: [{name: main, image: "registry.invalid/app:',
    `containers: [{name: main, envFrom: [{configMapRef: {name: cfg}}], image: "registry.invalid/app:`,
  );
}

function overlay(level: string, tag: string, pods: 'healthy' | 'never-ready'): Record<string, string> {
  return {
    'app/base/kustomization.yaml': 'resources: [web.yaml]\n',
    'app/base/web.yaml': web(tag, pods),
    'app/components/labels/kustomization.yaml':
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs: {team: web}\n',
    'app/kustomization.yaml': `resources: [base]
components: [components/labels]
configMapGenerator:
- name: cfg
  literals: [LEVEL=${level}]
- name: settings
  literals: [replicas=1]
patches:
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      annotations: {example.com/patched: "yes"}
replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: data.replicas}
  targets:
  - select: {kind: Deployment, name: web}
    fieldPaths:
    - metadata.annotations.[example.com/replicas]
    options: {create: true}
`,
  };
}

type LiveDeployment = {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    template?: { spec?: { containers?: { envFrom?: { configMapRef?: { name?: string } }[] }[] } };
  };
};

async function liveWeb(ns: string) {
  return env.client.get<LiveDeployment>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: ns,
    name: 'web',
  });
}
const cfgOf = (d: LiveDeployment | undefined) =>
  d?.spec?.template?.spec?.containers?.[0]?.envFrom?.[0]?.configMapRef?.name ?? '';

describe('render.type Kustomize', { concurrency: true }, () => {
  test('an overlay rolls out; a configMapGenerator change that never gets Ready rolls back to the old hashed ConfigMap', () =>
    inRolloutScenario(env, 'kz-roll', 'kz-roll', async ({ ns, repo, waitForRollout }) => {
      const { client } = env;
      const sha1 = await repo.commit(overlay('one', 'v1', 'healthy'));
      await client.create(
        gitRelease(ns, 'app', repo, { render: { type: 'Kustomize', targetNamespace: ns } }),
      );
      const r1 = await waitForRollout('Succeeded(commit 1)', reached('Succeeded', sha1));
      const R1 = r1.status?.rollout?.renderRef ?? '';

      const d1 = await liveWeb(ns);
      const cfg1 = cfgOf(d1);
      assert.match(
        cfg1,
        /^cfg-[a-z0-9]{10}$/,
        'the generated ConfigMap has a hashed name the Deployment names',
      );
      assert.equal(d1?.metadata.labels?.team, 'web', 'the component applied');
      assert.equal(d1?.metadata.annotations?.['example.com/patched'], 'yes', 'the patch applied');
      assert.equal(d1?.metadata.annotations?.['example.com/replicas'], '1', 'the replacement applied');
      const live1 = await liveConfigMap(client, ns, cfg1);
      assert.equal(live1?.data?.LEVEL, 'one');

      // The same files rendered here (as `convoy render` does) give the controller's renderRef.
      const local = await renderFiles(
        { render: { type: 'Kustomize', targetNamespace: ns } },
        await new GitSource({ cacheDir: `${env.work}/kz-local`, allowFileUrls: true }).fetch(
          { url: repo.url, ref: { branch: 'main' }, path: 'app' },
          undefined,
        ),
        { target: client, namespace: ns },
      );
      assert.equal(local.renderRef, R1);

      const sha2 = await repo.commit(overlay('two', 'v2', 'never-ready'));
      await waitForRollout('Progressing(commit 2)', (r) => r.state === 'Progressing' && r.revision === sha2);
      const cfg2 = await waitFor('commit 2 live', async () => {
        const name = cfgOf(await liveWeb(ns));
        return name !== cfg1 ? name : false;
      });
      assert.match(cfg2, /^cfg-[a-z0-9]{10}$/);

      const rb = await waitForRollout('RolledBack(commit 2)', (r) => r.state === 'RolledBack', 60_000);
      assert.equal(rb.status?.lastAttempted?.renderRef, R1);
      // The whole render came back: the Deployment names the old hashed ConfigMap, which is live with
      // its old data, and the new one is gone from the inventory.
      assert.equal(cfgOf(await liveWeb(ns)), cfg1);
      const back = await liveConfigMap(client, ns, cfg1);
      assert.equal(back?.data?.LEVEL, 'one');
      const inv = await getInventory(client, ns, 'app');
      const names = (inv?.entries ?? []).filter((e) => e.kind === 'ConfigMap').map((e) => e.name);
      assert.ok(names.includes(cfg1), `inventory names ${cfg1}: ${names.join(', ')}`);
      assert.ok(!names.includes(cfg2), `inventory no longer names ${cfg2}: ${names.join(', ')}`);
    }));

  test('a kustomization error and a remote base: RenderFailed naming the problem, an Event, nothing applied', () =>
    inRolloutScenario(env, 'kz-bad', 'kz-bad', async ({ ns, repo }) => {
      const { client } = env;
      /** The Ready message once it says `words`, checked to be a RenderFailed. */
      const renderFailedSaying = async (words: RegExp, what: string): Promise<string> => {
        const r = await waitForReady(
          client,
          ns,
          'app',
          (x) => words.test(condition(x, 'Ready')?.message ?? ''),
          what,
        );
        assert.equal(condition(r, 'Ready')?.reason, 'RenderFailed');
        return condition(r, 'Ready')?.message ?? '';
      };
      const assertNothingApplied = async () =>
        assert.equal(
          await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'first' }),
          undefined,
          'nothing applied',
        );
      await repo.commit({
        'app/kustomization.yaml': 'resources: [cm.yaml, missing.yaml]\n',
        'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\ndata: {a: "1"}\n',
      });
      await client.create(
        gitRelease(ns, 'app', repo, { render: { type: 'Kustomize', targetNamespace: ns } }),
      );
      const r = await waitForReason(client, ns, 'app', 'RenderFailed');
      const message = condition(r, 'Ready')?.message ?? '';
      assert.equal(condition(r, 'Ready')?.status, 'False');
      assert.match(message, /kustomize build: .*missing\.yaml/);
      assert.doesNotMatch(message, /convoy-kustomize-/, 'the private work directory is not shown');
      await waitFor('the RenderFailed Event', async () =>
        (await events(client, ns, 'app')).find((e) => /missing\.yaml/.test(e.message ?? '')),
      );
      await assertNothingApplied();

      await repo.commit({
        'app/kustomization.yaml': 'resources:\n- cm.yaml\n- https://github.com/example/deploy//base?ref=v1\n',
      });
      assert.match(
        await renderFailedSaying(/remote/, 'RenderFailed (remote base)'),
        /kustomization\.yaml resources\[1\]: remote "https:\/\/github\.com\/example\/deploy\/\/base\?ref=v1" is not allowed: set spec\.render\.kustomize\.allowRemoteResources/,
      );
      await assertNothingApplied();

      // A base beside the path, not under it: the message names the field and the path to set.
      await repo.commit({
        'app/kustomization.yaml': 'resources:\n- cm.yaml\n- ../common/base\n',
        'common/base/kustomization.yaml': 'resources: [cm.yaml]\n',
        'common/base/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\n',
      });
      const said = await renderFailedSaying(/outside/, 'RenderFailed (a base outside the path)');
      assert.match(
        said,
        /the kustomization uses \.\.\/common\/base, outside spec\.source\.git\.path "app": .*set spec\.source\.git\.path to "" \(the source root\), with a kustomization\.yaml there whose resources list app/,
      );
      assert.doesNotMatch(said, /convoy-kustomize-|\/tmp\//, 'no work directory');
    }));
});
