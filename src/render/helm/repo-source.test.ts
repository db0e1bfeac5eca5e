// ChartRepoSource over a loopback HTTP repository: the Releases on one chart and range share the index
// request once per poll window (../fresh-reads.ts), a requested sync reads it again, and the archive of a
// version already read is not fetched twice.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { rawTarGz } from '../oci/testsupport.ts';
import { ChartRepoSource } from './repo-source.ts';

const archive = rawTarGz(
  { name: 'demo/Chart.yaml', data: 'apiVersion: v2\nname: demo\nversion: 1.2.0\n' },
  { name: 'demo/templates/cm.yaml', data: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\n' },
);
const digest = createHash('sha256').update(archive).digest('hex');
const index = `apiVersion: v1
entries:
  demo:
    - version: 1.2.0
      digest: ${digest}
      urls: [demo-1.2.0.tgz]
    - version: 1.1.0
      urls: [demo-1.1.0.tgz]
`;

test('chart source: one index request per poll window for every Release on the chart', async () => {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/index.yaml') res.end(index);
    else if (req.url === '/demo-1.2.0.tgz') res.end(archive);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source = new ChartRepoSource();
    const spec = { url, name: 'demo', version: '1.x' };
    const window = { pollWindowMs: 60_000 };
    const outs = await Promise.all([
      source.fetch(spec, undefined, undefined, window),
      source.fetch(spec, undefined, undefined, window),
    ]);
    const archives = () => requests.filter((r) => r.endsWith('.tgz')).length;
    const archivesBefore = archives();
    await source.fetch(spec, undefined, undefined, window);
    assert.equal(archives(), archivesBefore, 'the archive of a version already read is kept');
    assert.deepEqual(
      outs.map((o) => o.revision),
      [`1.2.0@sha256:${digest}`, `1.2.0@sha256:${digest}`],
    );
    assert.equal(requests.filter((r) => r === '/index.yaml').length, 1, 'three fetches, one index request');
    await source.fetch(spec, undefined, undefined, { readAfter: performance.now() });
    assert.equal(
      requests.filter((r) => r === '/index.yaml').length,
      2,
      'a requested sync reads the index again',
    );
    await source.fetch(spec, undefined, undefined, {});
    assert.equal(requests.filter((r) => r === '/index.yaml').length, 3, 'no window: every poll asks');
  } finally {
    server.close();
  }
});
