// Test support for the git source: a real origin repository with a work clone that commits to it,
// and a smart-HTTP server (git http-backend behind node:http) that can demand credentials and
// counts the requests it serves; a silent listener (accepts, never answers) and a look at the git
// processes still running. Used by tests only.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { baseGitEnv } from './auth.ts';
import { runGit } from './exec.ts';

const env = {
  ...baseGitEnv(process.env),
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await runGit(args, { env, cwd, timeoutMs: 30_000 })).stdout.toString().trim();
}

export type Fixture = {
  /** Temp directory holding everything; also a good parent for cache dirs. */
  readonly root: string;
  /** Directory that holds the origin repository, "<root>/srv"; origin is "<srv>/<name>.git". */
  readonly srv: string;
  readonly name: string;
  /** file:// URL of the origin. */
  readonly url: string;
  /** Writes files (null deletes one), commits on `branch` (created from the current commit) and pushes. */
  commit(files: Readonly<Record<string, string | null>>, branch?: string): Promise<string>;
  /** An annotated tag at `sha` (default: the last commit), pushed; force moves an existing tag. */
  tag(name: string, sha?: string): Promise<void>;
  /** Deletes a branch on the origin, so its commits are reachable from no ref there. */
  deleteBranch(branch: string): Promise<void>;
  cleanup(): Promise<void>;
};

export async function makeRepo(name = 'repo'): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), 'convoy-git-'));
  const srv = join(root, 'srv');
  const origin = join(srv, `${name}.git`);
  const work = join(root, 'work');
  await mkdir(srv);
  await git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  await git(root, 'init', '--quiet', '--initial-branch=main', work);
  await git(work, 'remote', 'add', 'origin', origin);
  const branches = new Set<string>();
  let current = 'main';
  let any = false;
  return {
    root,
    srv,
    name,
    url: `file://${origin}`,
    async commit(files, branch = 'main') {
      if (any && branch !== current) {
        await git(work, 'checkout', '--quiet', ...(branches.has(branch) ? [branch] : ['-b', branch]));
      }
      current = branch;
      branches.add(branch);
      for (const [path, text] of Object.entries(files)) {
        const full = join(work, path);
        if (text === null) {
          await rm(full, { force: true });
        } else {
          await mkdir(dirname(full), { recursive: true });
          await writeFile(full, text);
        }
      }
      await git(work, 'add', '--all');
      await git(work, 'commit', '--quiet', '--allow-empty', '-m', `commit on ${branch}`);
      any = true;
      await git(work, 'push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
    async tag(tagName, sha) {
      await git(work, 'tag', '--force', '-a', '-m', tagName, tagName, sha ?? 'HEAD');
      await git(work, 'push', '--quiet', '--force', 'origin', `refs/tags/${tagName}`);
    },
    async deleteBranch(branch) {
      await git(work, 'push', '--quiet', 'origin', '--delete', branch);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export type GitHttpServer = {
  /** http://127.0.0.1:<port> */
  readonly base: string;
  /** Requests served, credentials accepted or not. */
  requests: number;
  close(): Promise<void>;
};

/**
 * Serves the repositories under `projectRoot` over smart HTTP. With `authorization`, every request
 * must carry exactly that Authorization header value or gets 401 with a Basic challenge.
 */
export async function serveGitHttp(projectRoot: string, authorization?: string): Promise<GitHttpServer> {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    if (authorization !== undefined && req.headers.authorization !== authorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('unauthorized\n');
      return;
    }
    cgi(projectRoot, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    set requests(n: number) {
      state.requests = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `git http-backend` as a CGI program for one request. */
function cgi(projectRoot: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['content-encoding']
        ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) }
        : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => chunks.push(b));
  child.on('close', () => {
    const out = Buffer.concat(chunks);
    const end = out.indexOf('\r\n\r\n') >= 0 ? out.indexOf('\r\n\r\n') : out.indexOf('\n\n');
    const sep = out.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of out.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const k = line.slice(0, colon).trim();
      const v = line.slice(colon + 1).trim();
      if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    res.end(out.subarray(end + sep));
  });
}

export type SilentListener = {
  /** http://127.0.0.1:<port>/<name>.git: a git URL whose server never says a word. */
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
};

/** A TCP listener on loopback that accepts every connection and never answers: the stuck git server. */
export async function silentListener(name = 'stuck'): Promise<SilentListener> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${name}.git`,
    port,
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Running processes whose command line contains `text` (as `ps` shows them), with their parent pid. */
export async function processesMentioning(
  text: string,
): Promise<{ pid: number; ppid: number; args: string }[]> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'pid=,ppid=,args=']);
  return stdout
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }))
    .filter((p) => p.args.includes(text) && !p.args.startsWith('ps '));
}
