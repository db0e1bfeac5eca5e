// A Helm HTTP chart repository for tests and benches: charts packaged by the real `helm package` into a
// local directory indexed by the real `helm repo index`, served from it on loopback by a small
// node:http(s) server — optionally behind basic auth and on HTTPS with a self-signed certificate for
// 127.0.0.1 (its PEM is the CA a client trusts). Only the directory's own files are served, by name.
import { execFile as execFileCb } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { selfSigned } from '../lib/openssl.ts';
import { ensureTools } from './tools.ts';

const execFile = promisify(execFileCb);
const TOOL_TIMEOUT_MS = 60_000;

export interface HelmRepoOptions {
  readonly auth?: { readonly username: string; readonly password: string };
  readonly tls?: boolean;
}

export interface HelmRepo {
  /** http(s)://127.0.0.1:<port>/charts/ — what spec.source.chart.url names. */
  readonly url: string;
  /** With tls: the serving certificate, which is its own CA. */
  readonly caPem: string | undefined;
  /** GET requests answered so far, by path ("/charts/index.yaml"). */
  readonly requests: ReadonlyMap<string, number>;
  /** Packages a chart (its files by path, Chart.yaml's version is the one given) and re-indexes. */
  addChart(name: string, version: string, files: Readonly<Record<string, string>>): Promise<void>;
  stop(): Promise<void>;
}

export async function startHelmRepo(opts: HelmRepoOptions = {}): Promise<HelmRepo> {
  const helm = join(await ensureTools(), 'helm');
  const work = await mkdtemp(join(tmpdir(), 'convoy-helm-repo-'));
  const served = join(work, 'charts');
  await mkdir(served);
  const env = { HOME: work, PATH: '/usr/bin:/bin', HELM_CACHE_HOME: join(work, '.cache') };
  const run = (args: string[]) => execFile(helm, args, { env, timeout: TOOL_TIMEOUT_MS, cwd: work });
  await run(['repo', 'index', served]);

  const requests = new Map<string, number>();
  const expected =
    opts.auth === undefined
      ? undefined
      : `Basic ${Buffer.from(`${opts.auth.username}:${opts.auth.password}`).toString('base64')}`;
  const handler: http.RequestListener = (req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      if (expected !== undefined && req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end();
        return;
      }
      const name = path.startsWith('/charts/') ? path.slice('/charts/'.length) : '';
      const files = new Set(await readdir(served));
      if (req.method !== 'GET' || name.includes('/') || !files.has(name)) {
        res.writeHead(404).end();
        return;
      }
      const body = await readFile(join(served, name));
      res.writeHead(200, { 'content-length': body.length }).end(body);
    })().catch((err: unknown) => res.writeHead(500).end(`helm repo: ${String(err)}`));
  };
  let caPem: string | undefined;
  let server: http.Server;
  if (opts.tls === true) {
    const cert = await selfSignedCert(work);
    caPem = cert.certPem;
    server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, handler);
  } else {
    server = http.createServer(handler);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${opts.tls === true ? 'https' : 'http'}://127.0.0.1:${port}/charts/`;

  return {
    url,
    caPem,
    requests,
    async addChart(name, version, files) {
      const dir = join(work, 'src', `${name}-${version}`, name);
      for (const [p, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, p)), { recursive: true });
        await writeFile(join(dir, p), text);
      }
      await writeFile(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: ${version}\n`);
      await run(['package', dir, '--destination', served]);
      await run(['repo', 'index', served]);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** A self-signed certificate for 127.0.0.1 and localhost (openssl CLI), its own trust anchor. */
async function selfSignedCert(dir: string): Promise<{ certPem: string; keyPem: string }> {
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  await selfSigned({ keyFile: key, certFile: cert }, '/CN=127.0.0.1', 2, [
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    'basicConstraints=critical,CA:TRUE',
  ]);
  return { certPem: await readFile(cert, 'utf8'), keyPem: await readFile(key, 'utf8') };
}
