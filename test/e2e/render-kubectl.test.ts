// `convoy render DIR | kubectl create --dry-run=server -o json -f -` on a real API server: strings that
// YAML 1.1 reads as booleans or numbers (a Bitnami-style `value: "yes"`, redis's `--appendonly no`, a
// file mode "0755") reach the API as the strings the source had, where unquoted they became booleans
// and numbers that a ConfigMap or a container's args reject.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { runCommand } from '../support/run-command.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STRINGS = ['no', 'yes', 'on', 'off', 'y', 'n', 'NO', 'True', '~', 'null', '0755', '08', '1e3'];
const ARGS = ['--appendonly', 'no', '--port', '6379', '--mode', '0o17'];

let cp: ControlPlane | undefined;
let dir = '';
before(async () => {
  cp = await startControlPlane();
  dir = await mkdtemp(join(tmpdir(), 'convoy-render-kubectl-'));
  const data = Object.fromEntries(STRINGS.map((s, i) => [`k${i}`, s]));
  // JSON is YAML: the source has every value as a string, whatever a YAML 1.1 reader would make of it.
  const docs = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ambiguous', namespace: 'default' }, data },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'redis', namespace: 'default', labels: { enabled: 'yes' } },
      spec: {
        selector: { matchLabels: { app: 'redis' } },
        template: {
          metadata: { labels: { app: 'redis' } },
          spec: {
            containers: [
              {
                name: 'redis',
                image: 'redis',
                args: ARGS,
                env: [{ name: 'ALLOW_EMPTY_PASSWORD', value: 'yes' }],
              },
            ],
          },
        },
      },
    },
  ];
  await writeFile(join(dir, 'all.yaml'), docs.map((d) => JSON.stringify(d)).join('\n---\n'));
});
after(async () => {
  await cp?.stop();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

test('convoy render output applies through kubectl with every string still a string', async () => {
  assert.ok(cp);
  const rendered = await runCommand(process.execPath, ['src/cmd/convoy.ts', 'render', dir], {
    cwd: ROOT,
    env: process.env,
    timeoutMs: 60_000,
  });
  assert.equal(rendered.code, 0, rendered.out);
  assert.match(rendered.out, /^ +- "no"$/m, 'the argument is quoted');
  const kubectl = join(await ensureBinaries(), 'kubectl');
  const created = await runCommand(
    kubectl,
    ['--kubeconfig', cp.kubeconfigPath, 'create', '--dry-run=server', '-o', 'json', '-f', '-'],
    { cwd: dir, env: process.env, input: rendered.out, timeoutMs: 60_000 },
  );
  assert.equal(created.code, 0, created.out);
  // kubectl prints one JSON object per created object, one after the other.
  const list = { items: JSON.parse(`[${created.out.trim().replace(/\n}\n{/g, '\n},\n{')}]`) } as {
    items: {
      kind: string;
      data?: Record<string, string>;
      metadata: { labels?: Record<string, string> };
      spec?: { template: { spec: { containers: { args: string[]; env: { value: string }[] }[] } } };
    }[];
  };
  const cm = list.items.find((i) => i.kind === 'ConfigMap');
  assert.deepEqual(cm?.data, Object.fromEntries(STRINGS.map((s, i) => [`k${i}`, s])));
  const deployment = list.items.find((i) => i.kind === 'Deployment');
  const container = deployment?.spec?.template.spec.containers[0];
  assert.deepEqual(container?.args, ARGS);
  assert.equal(container?.env[0]?.value, 'yes');
  assert.deepEqual(deployment?.metadata.labels, { enabled: 'yes' });
});
