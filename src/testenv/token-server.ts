// The token service of a test registry in token-auth mode, as ghcr.io, Docker Hub or Harbor run one:
// the registry answers 401 with `WWW-Authenticate: Bearer realm=…,service=…,scope=…`, the client
// fetches a token here (with basic credentials, or none), and the registry checks the token's ES256
// signature against the JWKS written for it. It grants the scope asked for to the one user (pull to
// anyone when `anonymousPull`), refuses wrong credentials with 401. Runs in the test's own process
// (node:https on loopback); closed by the registry's stop().
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export const TOKEN_SERVICE = 'convoy-testenv-registry';
export const TOKEN_ISSUER = 'convoy-testenv-token-service';

export interface TokenServer {
  /** https://127.0.0.1:<port>/token (http:// without TLS). */
  readonly realm: string;
  /** Tokens handed out so far (a test checks the Bearer flow really ran). */
  issued(): number;
  close(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** Starts the service and writes the JWKS the registry trusts to `jwksPath`. */
export async function startTokenServer(opts: {
  readonly username: string;
  readonly password: string;
  readonly jwksPath: string;
  readonly tls?: { readonly cert: string; readonly key: string };
}): Promise<TokenServer> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = createHash('sha256')
    .update(publicKey.export({ format: 'der', type: 'spki' }))
    .digest('hex')
    .slice(0, 16);
  await writeFile(
    opts.jwksPath,
    JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] }),
  );
  let count = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/token') {
      res.writeHead(404).end();
      return;
    }
    const header = req.headers.authorization ?? '';
    const basic = header.startsWith('Basic ')
      ? Buffer.from(header.slice(6), 'base64').toString('utf8')
      : undefined;
    if (basic !== undefined && basic !== `${opts.username}:${opts.password}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"wrong credentials"}');
      return;
    }
    if (basic === undefined) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"credentials required"}');
      return;
    }
    const access = url.searchParams.getAll('scope').flatMap((scope) => {
      const [type, name, actions] = scope.split(':');
      return type === undefined || name === undefined
        ? []
        : [{ type, name, actions: (actions ?? '').split(',').filter(Boolean) }];
    });
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: TOKEN_ISSUER,
      sub: opts.username,
      aud: url.searchParams.get('service') ?? TOKEN_SERVICE,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    };
    const signing = `${b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid }))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(signing), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    count++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token: `${signing}.${b64url(signature)}`, expires_in: 300 }));
  };
  const server = opts.tls
    ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
    : http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // Never the reason a finished test process stays alive.
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    realm: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}/token`,
    issued: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
