// A real OCI registry (distribution's `registry`, built from its Go module by tools.ts) on a loopback
// port, for tests and `convoy dev`: its own temp dir for storage, config and log; optionally htpasswd
// basic auth or a Bearer token service (token-server.ts), and TLS with a CA made for it. It dies with its owner like the control plane's processes
// (process group, exit handlers, a watchdog for a SIGKILLed parent; see proc.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../lib/errors.ts';
import { issued, selfSigned } from '../lib/openssl.ts';
import { htpasswdLine } from './bcrypt.ts';
import { request } from './http.ts';
import { startOnFreePorts } from './ports.ts';
import { GuardedDir, logTail, type Proc, ProcessExitedError, spawnLogged, stopProc } from './proc.ts';
import { startTokenServer, TOKEN_ISSUER, TOKEN_SERVICE, type TokenServer } from './token-server.ts';
import { ensureTools, toolPath } from './tools.ts';

export interface RegistryOptions {
  /**
   * Require these credentials: htpasswd basic auth (the default), or `token` — a token service in this
   * process (token-server.ts) that the registry sends clients to with a Bearer challenge.
   */
  readonly auth?: {
    readonly username: string;
    readonly password: string;
    readonly mode?: 'htpasswd' | 'token';
  };
  /** Serve HTTPS with a certificate for 127.0.0.1 and localhost signed by a fresh CA (caPem). */
  readonly tls?: boolean;
  /** Directory with the `registry` binary; default ensureTools() (builds it the first time). */
  readonly binDir?: string;
  /** Gives up starting after this long (default 30 s). */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface TestRegistry {
  /** "127.0.0.1:<port>": what goes after oci:// in a reference. */
  readonly host: string;
  /** "http://127.0.0.1:<port>" or "https://…". */
  readonly endpoint: string;
  /** With tls: the CA that signed the serving certificate. */
  readonly caPem?: string;
  /** True without tls: clients must be told to speak plain HTTP. */
  readonly insecure: boolean;
  readonly auth?: { readonly username: string; readonly password: string };
  /** In token mode: how many tokens the token service issued. */
  readonly tokensIssued?: () => number;
  readonly dir: string;
  readonly pid: number;
  /** A docker config JSON (as a dockerconfigjson Secret holds) for these credentials. */
  dockerConfigJson(username?: string, password?: string): string;
  /** Where the registry stores a blob on disk (a test rewrites it to corrupt the registry). */
  blobPath(digest: string): string;
  /** Kills the registry and removes its dir; safe to call twice. */
  stop(): Promise<void>;
}

export class RegistryStartError extends Error {
  override name = 'RegistryStartError';
}

export async function startRegistry(opts: RegistryOptions = {}): Promise<TestRegistry> {
  const bin = opts.binDir ?? (await ensureTools(opts.log ? { log: opts.log } : {}));
  const dir = await mkdtemp(join(tmpdir(), 'convoy-registry-'));
  const guard = new GuardedDir(dir);
  let proc: Proc | undefined;
  let tokens: TokenServer | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (proc !== undefined) await stopProc(proc);
      await tokens?.close();
      guard.release();
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return stopping;
  };
  try {
    await mkdir(join(dir, 'data'));
    const tls = opts.tls ? await writeServingCert(join(dir, 'tls')) : undefined;
    if (opts.auth?.mode === 'token') {
      const pem = tls && {
        cert: await readFile(tls.certFile, 'utf8'),
        key: await readFile(tls.keyFile, 'utf8'),
      };
      tokens = await startTokenServer({
        username: opts.auth.username,
        password: opts.auth.password,
        jwksPath: join(dir, 'jwks.json'),
        ...(pem ? { tls: pem } : {}),
      });
    } else if (opts.auth) {
      await writeFile(join(dir, 'htpasswd'), htpasswdLine(opts.auth.username, opts.auth.password));
    }
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    return await startOnFreePorts(1, async ([port = 0]) => {
      const config = join(dir, 'config.yml');
      await writeFile(config, registryConfig(dir, port, opts, tls, tokens?.realm));
      proc = spawnLogged({
        name: 'registry',
        command: toolPath(bin, 'registry'),
        args: ['serve', config],
        logPath: join(dir, 'registry.log'),
        // No tracing exporter: the registry would otherwise try to reach a collector.
        env: { ...process.env, HOME: dir, OTEL_TRACES_EXPORTER: 'none', OTEL_SDK_DISABLED: 'true' },
        cwd: dir,
      });
      guard.record([proc]);
      const scheme = tls ? 'https' : 'http';
      const endpoint = `${scheme}://127.0.0.1:${port}`;
      await waitReady(proc, endpoint, tls?.caPem, deadline);
      const host = `127.0.0.1:${port}`;
      opts.log?.(`testenv: registry up at ${endpoint} (${dir})`);
      const { auth } = opts;
      return {
        host,
        endpoint,
        ...(tls ? { caPem: tls.caPem } : {}),
        insecure: !tls,
        ...(auth ? { auth: { username: auth.username, password: auth.password } } : {}),
        ...(tokens ? { tokensIssued: tokens.issued } : {}),
        dir,
        pid: proc.pid,
        dockerConfigJson: (username = auth?.username ?? '', password = auth?.password ?? '') =>
          JSON.stringify({
            auths: { [host]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } },
          }),
        blobPath: (digest) => {
          const [algo = 'sha256', hex = ''] = digest.split(':');
          return join(dir, 'data', 'docker', 'registry', 'v2', 'blobs', algo, hex.slice(0, 2), hex, 'data');
        },
        stop,
      };
    });
  } catch (err) {
    await stop();
    if (err instanceof ProcessExitedError) throw new RegistryStartError(err.message, { cause: err });
    throw err;
  }
}

function registryConfig(
  dir: string,
  port: number,
  opts: RegistryOptions,
  tls: { certFile: string; keyFile: string } | undefined,
  realm: string | undefined,
): string {
  const auth =
    realm !== undefined
      ? { token: { realm, service: TOKEN_SERVICE, issuer: TOKEN_ISSUER, jwks: join(dir, 'jwks.json') } }
      : opts.auth
        ? { htpasswd: { realm: 'convoy-testenv', path: join(dir, 'htpasswd') } }
        : undefined;
  // JSON is YAML: no quoting rules to get wrong for temp paths.
  return JSON.stringify({
    version: 0.1,
    log: { level: 'info', formatter: 'text', accesslog: { disabled: true } },
    storage: {
      filesystem: { rootdirectory: join(dir, 'data') },
      delete: { enabled: true },
      maintenance: { uploadpurging: { enabled: false } },
    },
    http: {
      addr: `127.0.0.1:${port}`,
      secret: randomBytes(16).toString('hex'),
      ...(tls ? { tls: { certificate: tls.certFile, key: tls.keyFile } } : {}),
    },
    ...(auth === undefined ? {} : { auth }),
  });
}

async function waitReady(proc: Proc, endpoint: string, caPem: string | undefined, deadline: number) {
  let last = '';
  for (;;) {
    if (proc.exit !== undefined) throw new ProcessExitedError(proc, 'while starting');
    try {
      // 200 without auth, 401 with it: either way the registry answers the distribution API.
      const res = await request(
        { server: endpoint, ...(caPem ? { caPem } : {}) },
        'GET',
        '/v2/',
        undefined,
        2000,
      );
      if (res.status === 200 || res.status === 401) return;
      last = `GET /v2/ answered ${res.status}`;
    } catch (err) {
      last = errorMessage(err);
    }
    if (Date.now() > deadline) {
      throw new RegistryStartError(`the registry did not answer at ${endpoint} (${last})\n${logTail(proc)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A CA and a serving cert for 127.0.0.1 and localhost, made with the openssl CLI (as frontproxy.ts). */
async function writeServingCert(dir: string): Promise<{ caPem: string; certFile: string; keyFile: string }> {
  await mkdir(dir, { recursive: true });
  const f = (name: string) => join(dir, name);
  const ca = { keyFile: f('ca.key'), certFile: f('ca.crt') };
  try {
    await selfSigned(ca, '/CN=convoy-testenv-registry-ca', 30);
    await writeFile(
      f('ext.cnf'),
      'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
    );
    const tls = { keyFile: f('tls.key'), csrFile: f('tls.csr'), certFile: f('tls.crt') };
    await issued(ca, tls, '/CN=127.0.0.1', 30, f('ext.cnf'));
  } catch (err) {
    throw new RegistryStartError(`making the registry's TLS cert: ${errorMessage(err)}`, { cause: err });
  }
  return { caPem: await readFile(f('ca.crt'), 'utf8'), certFile: f('tls.crt'), keyFile: f('tls.key') };
}

/** The registry's log, or why it could not be read (so a retry decision never hides the reason). */
