// Debian's Chromium for the UI's browser tests and bench (driven by playwright-core): /usr/bin/chromium,
// installed with apt-get when it is missing — never a browser downloaded by Playwright. The install is
// bounded (its whole process group is killed past the deadline) and its output is kept for the error.
import { spawn } from 'node:child_process';
import { executable } from './executable.ts';

export const CHROMIUM = '/usr/bin/chromium';

function run(
  cmd: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      out += `\n[killed after ${Math.round(timeoutMs / 1000)} s]`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${cmd}: ${err.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * The path of Debian's Chromium: /usr/bin/chromium, after `apt-get install -y chromium` (and, when
 * the package lists are missing, `apt-get update` first) if it is not installed.
 */
export async function ensureChromium(opts: { readonly timeoutMs?: number } = {}): Promise<string> {
  if (await executable(CHROMIUM)) return CHROMIUM;
  const timeoutMs = opts.timeoutMs ?? 600_000;
  let r = await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], timeoutMs);
  if (r.code !== 0 && /Unable to locate package|has no installation candidate/.test(r.out)) {
    const u = await run('apt-get', ['update'], timeoutMs);
    if (u.code !== 0) throw new Error(`apt-get update failed (exit ${u.code}):\n${u.out}`);
    r = await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], timeoutMs);
  }
  if (r.code !== 0 || !(await executable(CHROMIUM))) {
    throw new Error(
      `apt-get install -y chromium failed (exit ${r.code}); the UI tests need ${CHROMIUM}:\n${r.out}`,
    );
  }
  return CHROMIUM;
}
