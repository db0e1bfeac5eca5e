// Test support for the HTTP API: a front-proxy CA with client certificates (made by the openssl CLI,
// as a cluster's requestheader CA would be), and an HTTPS client that returns status, headers and the
// parsed body. Used by tests only.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { issued, selfSigned } from '../lib/openssl.ts';

export interface TestCa {
  readonly cert: string;
  /** Issues a client certificate (clientAuth unless told otherwise) with this common name. */
  issue(
    commonName: string,
    opts?: { readonly extendedKeyUsage?: string },
  ): Promise<{ readonly cert: string; readonly key: string }>;
  dispose(): Promise<void>;
}

export async function makeTestCa(commonName: string): Promise<TestCa> {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-test-ca-'));
  const ca = { keyFile: join(dir, 'ca.key'), certFile: join(dir, 'ca.crt') };
  await selfSigned(ca, `/CN=${commonName}`, 1);
  let n = 0;
  return {
    cert: await readFile(join(dir, 'ca.crt'), 'utf8'),
    async issue(cn, opts = {}) {
      const base = join(dir, `c${n++}`);
      await writeFile(`${base}.ext`, `extendedKeyUsage=${opts.extendedKeyUsage ?? 'clientAuth'}\n`);
      const out = { keyFile: `${base}.key`, csrFile: `${base}.csr`, certFile: `${base}.crt` };
      await issued(ca, out, `/CN=${cn}`, 1, `${base}.ext`);
      return { cert: await readFile(`${base}.crt`, 'utf8'), key: await readFile(`${base}.key`, 'utf8') };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface CallOptions {
  readonly token?: string;
  /** Sent as is; objects are JSON-encoded. */
  readonly body?: string | object;
  readonly headers?: Readonly<Record<string, string | string[]>>;
  /** A client certificate to present. */
  readonly clientCert?: { readonly cert: string; readonly key: string };
  /** The agent whose connections to use (e.g. one keep-alive connection across a rotation). */
  readonly agent?: Agent;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Parsed JSON, or the text when the body is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  readonly body: any;
  /** Whether the request went over a connection an earlier request had opened. */
  readonly reusedSocket: boolean;
  /** SHA-256 fingerprint of the certificate the server presented on that connection. */
  readonly serverSha256: string | undefined;
}

/** One HTTPS request to `baseUrl + path`, trusting exactly `ca`. */
export function httpsCall(
  baseUrl: string,
  ca: string,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<CallResult> {
  const url = new URL(path, baseUrl);
  const payload =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  const headers: Record<string, string | string[]> = { Accept: 'application/json', ...opts.headers };
  if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
  if (payload !== undefined && headers['Content-Type'] === undefined)
    headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const agentOpt = opts.agent === undefined ? {} : { agent: opts.agent };
    const req = request(url, { method, ca, headers, ...agentOpt, ...(opts.clientCert ?? {}) }, (res) => {
      // Read now: a keep-alive socket goes back to its agent once the response ends.
      const serverSha256 = (res.socket as TLSSocket).getPeerCertificate()?.fingerprint256;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // plain text (healthz)
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          reusedSocket: req.reusedSocket,
          serverSha256,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
