// The example `convoy dev` rolls out: its verification is the one getting-started.md shows, and
// error-rate.patch changes nothing but the ConfigMap's errorRate (so the pods stay Ready).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Release } from '../api/types.ts';
import {
  ERROR_RATE_PATCH,
  EXAMPLE_MANIFESTS,
  errorRateCommand,
  exampleRelease,
  exampleVerification,
  git,
  initExampleRepo,
  TRAFFIC_CONFIGMAP,
} from './dev-example.ts';

const base = { name: 'guestbook', namespace: 'default', url: 'file:///repo', targetNamespace: 'guestbook' };

test('the example Release checks the error rate only when there is a Prometheus to ask', () => {
  assert.equal(exampleRelease(base).spec.verification, undefined);
  const v = exampleRelease({ ...base, prometheus: 'http://127.0.0.1:9090' }).spec.verification;
  assert.equal(v?.checks?.[0]?.prometheus?.address, 'http://127.0.0.1:9090');
  assert.match(v?.checks?.[0]?.prometheus?.query ?? '', /http_requests_total\{code="500"\}/);
});

test("getting-started.md shows the example's verification as convoy dev creates it", async () => {
  const page = await readFile(
    fileURLToPath(new URL('../../docs/getting-started.md', import.meta.url)),
    'utf8',
  );
  const m = /<!-- doc-test: fragment kind=Release -->\n```yaml\n([\s\S]*?)```/.exec(page);
  assert.ok(m?.[1], 'the fragment block');
  const spec = (parse(m[1]) as { spec: Release['spec'] }).spec;
  const address = spec.verification?.checks?.[0]?.prometheus?.address ?? '';
  assert.deepEqual(spec.verification, exampleVerification(address));
});

test('error-rate.patch changes only the ConfigMap traffic, to errorRate "0.3"', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-dev-example-'));
  try {
    const repo = join(dir, 'guestbook');
    await initExampleRepo(repo);
    await git(repo, 'apply', ERROR_RATE_PATCH);
    const file = `${EXAMPLE_MANIFESTS}/${TRAFFIC_CONFIGMAP}.yaml`;
    assert.equal(await git(repo, 'diff', '--numstat'), `1\t1\t${file}`);
    const cm = parse(await readFile(join(repo, file), 'utf8')) as {
      metadata: { name: string };
      data: Record<string, string>;
    };
    assert.equal(cm.metadata.name, TRAFFIC_CONFIGMAP);
    assert.deepEqual(cm.data, { errorRate: '0.3', latencyMs: '20' });
    assert.equal(
      errorRateCommand(repo),
      `git -C ${repo} apply ${ERROR_RATE_PATCH} && git -C ${repo} commit -qam "Raise the error rate"`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
