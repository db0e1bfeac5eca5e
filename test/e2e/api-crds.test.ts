// convoy's CRDs on the real apiserver: every example in docs/reference and examples/resources is accepted,
// and invalid objects are rejected with a message that names the field.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { describeCauses, KubeApiError } from '../../src/kube/errors.ts';
import { writeStatus } from '../../src/kube/status.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'examples';
let cluster: CrdCluster | undefined;
let client: KubeClient;

before(async () => {
  cluster = await startCrdCluster({ namespaces: [NS, 'bad'] });
  client = cluster.client;
});
after(async () => {
  await cluster?.stop();
});

interface Example {
  readonly where: string;
  readonly object: KubeObject;
}

/** Every convoy object in ```yaml blocks of docs/reference/*.md and in examples/resources/*.yaml. */
async function examples(): Promise<Example[]> {
  const out: Example[] = [];
  const add = (where: string, text: string) => {
    for (const doc of parseAllDocuments(text)) {
      const object = doc.toJS() as KubeObject | null;
      if (object?.apiVersion === API_VERSION) out.push({ where, object });
    }
  };
  const docs = join(ROOT, 'docs/reference');
  for (const file of (await readdir(docs)).filter((f) => f.endsWith('.md')).sort()) {
    const text = await readFile(join(docs, file), 'utf8');
    let i = 0;
    for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g))
      add(`docs/reference/${file} block ${++i}`, m[1] ?? '');
  }
  const dir = join(ROOT, 'examples/resources');
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
    add(`examples/resources/${file}`, await readFile(join(dir, file), 'utf8'));
  }
  return out;
}

test('every CRD accepts the examples in docs/reference and examples/resources', async () => {
  const all = await examples();
  const kinds = new Set(all.map((e) => e.object.kind));
  assert.deepEqual([...kinds].sort(), [
    'Cluster',
    'GlobalHealthRuleSet',
    'HealthRuleSet',
    'Release',
    'ReleaseInventory',
  ]);
  for (const { where, object } of all) {
    const namespaced = object.kind !== 'GlobalHealthRuleSet';
    const body = { ...object, metadata: { ...object.metadata, ...(namespaced ? { namespace: NS } : {}) } };
    const stored = await applyObject(client, body, { fieldManager: FIELD_MANAGERS.api, force: true }).catch(
      (err) => {
        throw new Error(`${where} rejected: ${err instanceof KubeApiError ? describeCauses(err) : err}`);
      },
    );
    assert.equal(stored.metadata.name, object.metadata.name, where);
  }
});

const source = { inline: { manifests: 'kind: ConfigMap' } };
const release = (spec: Record<string, unknown>) => ({ kind: 'Release', spec: { source, ...spec } });
const rules = (rule: Record<string, unknown>) => ({
  spec: { rules: [{ name: 'r', match: { kinds: ['Deployment'] }, healthy: 'true', ...rule }] },
});
const entry = { group: '', kind: 'ConfigMap', namespace: 'x', name: 'a' };

/** [what, object (kind + body), field the message must name, words the message must contain] */
const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string, RegExp]> = [
  ['Release without spec', { kind: 'Release' }, 'spec', /Required value/],
  [
    'a rollout deadline of 0',
    release({ healthAssessment: {}, failurePolicy: { deadline: '0' } }),
    'spec.failurePolicy.deadline',
    /must be a duration greater than 0/,
  ],
  [
    'a health deadline of 0s',
    release({ healthAssessment: { deadline: '0s' } }),
    'spec.healthAssessment.deadline',
    /must be a duration greater than 0/,
  ],
  [
    'a wave timeout of 0.0m',
    release({ waves: [{ wave: 1, healthStrategy: 'WaitPrevious', timeout: '0.0m' }] }),
    'spec.waves[0].timeout',
    /must be a duration greater than 0/,
  ],
  [
    'a Provider timeout of 0',
    { kind: 'Provider', spec: { type: 'generic', address: 'https://hooks.example/x', timeout: '0' } },
    'spec.timeout',
    /must be a duration greater than 0/,
  ],
  ['Release without source', { kind: 'Release', spec: { historyLimit: 3 } }, 'spec.source', /Required value/],
  ['no source kind', { kind: 'Release', spec: { source: {} } }, 'spec.source', /exactly one source/],
  [
    'two sources',
    release({ source: { ...source, oci: { url: 'oci://r/x' } } }),
    'spec.source',
    /exactly one source/,
  ],
  ['git without url', release({ source: { git: { path: 'x' } } }), 'spec.source.git.url', /Required value/],
  [
    'git ref with branch and tag',
    release({ source: { git: { url: 'https://g/x', ref: { branch: 'main', tag: 'v1' } } } }),
    'spec.source.git.ref',
    /exactly one of branch, tag or commit/,
  ],
  [
    'git commit not hex',
    release({ source: { git: { url: 'https://g/x', ref: { commit: 'HEAD' } } } }),
    'spec.source.git.ref.commit',
    /should match/,
  ],
  [
    'oci url without oci://',
    release({ source: { oci: { url: 'https://r/x' } } }),
    'spec.source.oci.url',
    /should match/,
  ],
  ['render type unknown', release({ render: { type: 'Jsonnet' } }), 'spec.render.type', /Unsupported value/],
  [
    'helm options on a Plain render',
    release({ render: { type: 'Plain', helm: { releaseName: 'x' } } }),
    'spec.render.helm',
    /only be set when render.type is 'Helm'/,
  ],
  [
    'interval not a duration',
    release({ syncPolicy: { interval: '5 minutes' } }),
    'spec.syncPolicy.interval',
    /should match/,
  ],
  [
    'interval without unit',
    release({ syncPolicy: { interval: '300' } }),
    'spec.syncPolicy.interval',
    /should match/,
  ],
  [
    'sync mode unknown',
    release({ syncPolicy: { mode: 'Sometimes' } }),
    'spec.syncPolicy.mode',
    /Unsupported value/,
  ],
  [
    'failurePolicy without healthAssessment',
    release({ failurePolicy: { deadline: '10m' } }),
    'spec.failurePolicy',
    /requires healthAssessment/,
  ],
  [
    'failurePolicy without deadline',
    release({ healthAssessment: {}, failurePolicy: { rollback: 'Never' } }),
    'spec.failurePolicy.deadline',
    /Required value/,
  ],
  [
    'rollback unknown',
    release({ healthAssessment: {}, failurePolicy: { deadline: '1m', rollback: 'Always' } }),
    'spec.failurePolicy.rollback',
    /Unsupported value/,
  ],
  [
    'health deadline negative',
    release({ healthAssessment: { deadline: '-1m' } }),
    'spec.healthAssessment.deadline',
    /should match/,
  ],
  ['pin not a renderRef', release({ pin: { renderRef: 'abc' } }), 'spec.pin.renderRef', /should match/],
  ['historyLimit 0', release({ historyLimit: 0 }), 'spec.historyLimit', /greater than or equal to 1/],
  ['deletionPolicy unknown', release({ deletionPolicy: 'Keep' }), 'spec.deletionPolicy', /Unsupported value/],
  [
    'a wave listed twice',
    release({
      waves: [
        { wave: 1, healthStrategy: 'WaitPrevious' },
        { wave: 1, healthStrategy: 'WaitPrevious' },
      ],
    }),
    'spec.waves[1]',
    /Duplicate value/,
  ],
  [
    'wave strategy unknown',
    release({ waves: [{ wave: 1, healthStrategy: 'WaitAll' }] }),
    'spec.waves[0].healthStrategy',
    /Unsupported value/,
  ],
  [
    'cluster name not a DNS name',
    release({ cluster: { name: 'Prod EU' } }),
    'spec.cluster.name',
    /should match/,
  ],
  [
    'inventory entry without kind',
    { kind: 'ReleaseInventory', entries: [{ group: '', namespace: 'x', name: 'a' }] },
    'entries[0].kind',
    /Required value/,
  ],
  [
    'inventory entry twice',
    { kind: 'ReleaseInventory', entries: [entry, entry] },
    'entries[1]',
    /Duplicate value/,
  ],
  [
    'inventory state unknown',
    { kind: 'ReleaseInventory', entries: [{ ...entry, state: 'Fine' }] },
    'entries[0].state',
    /Unsupported value/,
  ],
  [
    'hook phase unknown',
    { kind: 'ReleaseInventory', hooks: [{ name: 'h', phase: 'MidSync' }] },
    'hooks[0].phase',
    /Unsupported value/,
  ],
  [
    'hook timeout not a duration',
    { kind: 'ReleaseInventory', hooks: [{ name: 'h', timeout: '5 min' }] },
    'hooks[0].timeout',
    /should match/,
  ],
  [
    'cluster shard negative',
    { kind: 'Cluster', spec: { shard: -1 } },
    'spec.shard',
    /greater than or equal to 0/,
  ],
  [
    'kubeconfig secret without name',
    { kind: 'Cluster', spec: { kubeconfigSecretRef: { key: 'k' } } },
    'spec.kubeconfigSecretRef.name',
    /Required value/,
  ],
  [
    'rule without healthy',
    { kind: 'HealthRuleSet', ...rules({ healthy: undefined }) },
    'spec.rules[0].healthy',
    /Required value/,
  ],
  [
    'rule without kinds',
    { kind: 'HealthRuleSet', ...rules({ match: { group: 'apps' } }) },
    'spec.rules[0].match.kinds',
    /Required value/,
  ],
  [
    'two rules with one name',
    {
      kind: 'GlobalHealthRuleSet',
      spec: {
        rules: [
          { name: 'r', match: { kinds: ['Job'] }, healthy: 'true' },
          { name: 'r', match: { kinds: ['Pod'] }, healthy: 'true' },
        ],
      },
    },
    'spec.rules[1]',
    /Duplicate value/,
  ],
  [
    'rule set without rules',
    { kind: 'GlobalHealthRuleSet', spec: { rules: [] } },
    'spec.rules',
    /at least 1 item/,
  ],
];

test(`${INVALID.length} invalid objects are rejected with a message naming the field`, async () => {
  assert.ok(INVALID.length >= 15);
  let i = 0;
  for (const [what, partial, field, words] of INVALID) {
    const kind = partial.kind as string;
    const object = {
      apiVersion: API_VERSION,
      ...partial,
      metadata: { name: `bad-${++i}`, ...(kind === 'GlobalHealthRuleSet' ? {} : { namespace: 'bad' }) },
    } as KubeObject;
    // POST, as `kubectl create` does: an apply refuses duplicate list-map keys before validation (below)
    const err = await client.create(object).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof KubeApiError, `${what}: accepted`);
    assert.equal(err.code, 422, `${what}: ${err.message}`);
    const named = err.causes.find((c) => c.field === field);
    assert.ok(named !== undefined, `${what}: no cause names ${field}; got ${describeCauses(err)}`);
    assert.match(`${named.message}`, words, `${what}: ${describeCauses(err)}`);
    assert.ok(err.apiMessage.includes(field), `${what}: the message names ${field}: ${err.apiMessage}`);
  }
});

test('kubectl columns of a Release: Ready, Healthy, Rollout, Revision, Age, Message', async () => {
  const table = await client.request<{ columnDefinitions: { name: string; priority: number }[] }>({
    method: 'GET',
    path: `/apis/${API_VERSION}/namespaces/${NS}/releases`,
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  const columns = table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name);
  assert.deepEqual(columns, ['Name', 'Ready', 'Healthy', 'Rollout', 'Revision', 'Age', 'Message']);
});

test('kubectl columns of a ReleaseSet: Revision, Train, Wave, Ready, Good, Age, Message; Failed in -o wide', async () => {
  // One set with a status, so the cells show each column's jsonPath reads a field the server has.
  await applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'ReleaseSet',
      metadata: { name: 'columns', namespace: NS },
      spec: { template: { spec: { source } } },
    } as KubeObject,
    { fieldManager: FIELD_MANAGERS.api },
  );
  const status = {
    revision: 'rev2',
    train: {
      revision: 'rev2',
      id: 'rev2',
      state: 'Stopped',
      wave: 2,
      startedAt: '2026-12-02T05:00:00Z',
      failedCluster: 'eu',
    },
    good: { revision: 'rev1', template: {} },
    summary: { total: 3, succeeded: 1, progressing: 0, waiting: 0, failed: 1, paused: 0, ready: '1/3' },
    message: 'revision rev2 failed on cluster eu (wave 2)',
  };
  await writeStatus(client, { kind: 'ReleaseSet', namespace: NS, name: 'columns' }, status, {
    fieldManager: FIELD_MANAGERS.fleet,
    force: true,
  });
  const table = await client.request<{
    columnDefinitions: { name: string; priority: number }[];
    rows: { cells: unknown[] }[];
  }>({
    method: 'GET',
    path: `/apis/${API_VERSION}/namespaces/${NS}/releasesets`,
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  assert.deepEqual(
    table.columnDefinitions.map((c) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Revision', 0],
      ['Train', 0],
      ['Wave', 0],
      ['Ready', 0],
      ['Good', 0],
      ['Age', 0],
      ['Message', 0],
      ['Failed', 1],
    ],
  );
  const cells = table.rows.map((r) => [...r.cells.slice(0, 6), ...r.cells.slice(7)]);
  assert.deepEqual(cells, [
    ['columns', 'rev2', 'Stopped', 2, '1/3', 'rev1', 'revision rev2 failed on cluster eu (wave 2)', 'eu'],
  ]);
});

test('every git URL form docs/sources.md lists is accepted (git://, user@host:path too)', async () => {
  const urls = [
    'https://git.example.com/team/app.git',
    'http://git.example.com/team/app.git',
    'ssh://git@git.example.com/team/app.git',
    'git://git.example.com/team/app.git',
    'git@github.com:team/app.git',
    'deploy@git.example.com:team/app.git',
  ];
  let i = 0;
  for (const url of urls) {
    const object = {
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name: `url-${++i}`, namespace: NS },
      spec: { source: { git: { url } } },
    } as KubeObject;
    await client.create(object).catch((err: unknown) => {
      throw new Error(`${url} refused: ${err instanceof KubeApiError ? describeCauses(err) : err}`);
    });
  }
  const doc = await readFile(join(ROOT, 'docs/sources.md'), 'utf8');
  for (const form of ['git://', 'user@host:path']) assert.ok(doc.includes(form), `sources.md lists ${form}`);
});

test('an apply with duplicate list-map keys is refused before validation (500, naming the list)', async () => {
  const object = {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: 'dup', namespace: 'bad' },
    entries: [entry, entry],
  } as KubeObject;
  await assert.rejects(
    applyObject(client, object, { fieldManager: FIELD_MANAGERS.controller }),
    (e: unknown) =>
      e instanceof KubeApiError &&
      e.code === 500 &&
      /\.entries: duplicate entries for key/.test(e.apiMessage),
  );
  assert.equal(
    await client.get({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: 'bad', name: 'dup' }),
    undefined,
  );
});
