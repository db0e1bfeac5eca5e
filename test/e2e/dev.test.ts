// `convoy dev` driven as a new user would: HOME an empty directory (no git identity, no kubeconfig),
// run it, wait for the example's rollout to be reported Succeeded, paste the kubectl command it
// prints, run the getting-started blocks marked `<!-- doc-test: dev -->` (look around through the
// aggregated API, commit the broken change, wait for the rollback; revert it, raise the simulated error
// rate with every pod Ready, wait for the rollback by the verification check), see the check's chart on
// the web UI's Release page (a screenshot for docs/images/dev-verification.png), press Ctrl-C (SIGINT),
// and find nothing left: exit code 0, every process it reported starting gone (Prometheus too), every
// directory it made removed.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile as execFileCb, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Release } from '../../src/api/types.ts';
import { cacheRoot } from '../../src/testenv/build.ts';
import { isAlive } from '../../src/testenv/index.ts';
import { toolsCacheRoot } from '../../src/testenv/tools.ts';
import { blockName, extractAll } from '../support/doc-blocks.ts';
import { runCommand } from '../support/run-command.ts';
import { launchBrowser, SCREENSHOTS } from '../support/ui.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The break block waits for the rollback: the 1m deadline, the poll interval and a busy machine; the
 * error-rate block for a rollout with its soak, then the rollback.
 */
const DEV_BLOCK_TIMEOUT_MS = 400_000;

/** The environment of a new user: an empty HOME, no git identity anywhere, the built binaries' cache. */
function newUserEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('GIT_') && !k.startsWith('KUBE')) env[k] = v;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    // The control plane binaries a first run would build (15+ minutes): the cache they are in.
    CONVOY_TESTENV_CACHE: dirname(cacheRoot()),
    // Likewise kustomize, helm and the registry (minutes of Go builds into the empty HOME otherwise).
    CONVOY_TOOLS_CACHE: dirname(toolsCacheRoot()),
  };
}

/** The value of the first line matching `re`'s first group; fails the test naming what is missing. */
function printed(out: string, re: RegExp, what: string): string {
  const m = re.exec(out);
  assert.ok(m?.[1], `convoy dev printed no ${what}:\n${out}`);
  return m[1];
}

describe('convoy dev', () => {
  let child: ChildProcess | undefined;
  let out = '';
  let exit: Promise<{ code: number | null; signal: string | null }> | undefined;
  let home = '';
  const pids = () => [...out.matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));

  after(async () => {
    // Only when the test failed half-way: stop it the user's way, then make sure.
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(timer);
      for (const pid of pids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  test('as a new user: rolls the example out, the getting-started steps work, Ctrl-C leaves nothing', async () => {
    home = await mkdtemp(join(tmpdir(), 'convoy-dev-home-'));
    const env = newUserEnv(home);
    const identity = await runCommand('git', ['var', 'GIT_AUTHOR_IDENT'], {
      cwd: home,
      env,
      timeoutMs: 10_000,
    });
    assert.notEqual(identity.code, 0, `the new user has no git identity: ${identity.out}`);
    child = spawn(process.execPath, ['src/cmd/convoy.ts', 'dev', '--nodes', '2'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = child;
    proc.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    proc.stderr?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    exit = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));

    await waitFor(
      'convoy dev to report the example rollout Succeeded and print what to try',
      async () => {
        if (proc.exitCode !== null) throw new Error(`convoy dev exited with ${proc.exitCode}:\n${out}`);
        return /^convoy dev: rollout of sha256:\S+ Succeeded$/m.test(out) && out.includes('Press Ctrl-C');
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    assert.match(out, /Progressing/, 'the rollout was shown while it ran');
    assert.match(out, / · Verifying \(soak 20s\)$/m, 'the soak was shown while it ran');

    const kubeconfig = printed(out, /^ {2}export KUBECONFIG=(\S+)$/m, 'KUBECONFIG');
    const kubectl = printed(out, /^ {2}alias kubectl=(\S+)/m, 'kubectl alias');
    const command = printed(out, /^ {2}kubectl (get releases)\s/m, 'kubectl get releases hint');
    const { stdout } = await execFile(kubectl, command.split(' '), {
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    assert.match(stdout, /^guestbook\s+True\s+True\s+Succeeded\s+[0-9a-f]{12}\s/m, stdout);
    assert.match(out, /registered the HTTP API/, 'the aggregated API is registered');

    // The web UI it serves (docs/ui.md): its address sets the session, then the Releases show.
    const ui = printed(
      out,
      /^convoy dev: the web UI \(open it in a browser on this machine\): (\S+)$/m,
      'web UI address',
    );
    const login = await fetch(ui, { redirect: 'manual' });
    assert.equal(login.status, 303, 'the address sets the session cookie');
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const rows = (await (await fetch(new URL('/api/releases', ui), { headers: { cookie } })).json()) as {
      rows: { key: string }[];
    };
    assert.ok(
      rows.rows.some((r) => r.key === 'default/guestbook'),
      JSON.stringify(rows),
    );

    // The getting-started blocks that need this running convoy dev, in the order of the page.
    const repo = printed(out, /^ {2}export REPO=(\S+)/m, 'REPO');
    const blockEnv = {
      ...env,
      KUBECONFIG: kubeconfig,
      REPO: repo,
      PATH: [dirname(kubectl), join(ROOT, 'node_modules', '.bin'), env.PATH ?? ''].join(delimiter),
    };
    const devBlocks = (await extractAll(ROOT)).blocks.filter((b) => b.directive.kind === 'dev');
    assert.ok(devBlocks.length >= 3, 'getting-started.md has its look-around, break and error-rate blocks');
    for (const b of devBlocks) {
      const r = await runCommand('bash', ['-euo', 'pipefail', '-c', b.text], {
        cwd: ROOT,
        env: blockEnv,
        timeoutMs: DEV_BLOCK_TIMEOUT_MS,
      });
      assert.equal(r.code, 0, `${blockName(b)} failed under convoy dev (exit ${r.code}):\n${r.out}`);
      if (b.text.includes('--raw')) assert.match(r.out, /"kind":\s*"ReleaseHealth"/, r.out);
      if (b.text.includes('error-rate.patch')) {
        // `convoy status` shows the failed check, and the ConfigMap the rollback put back.
        assert.match(r.out, /^Verification \(soak 20s\): Failed/m, r.out);
        assert.match(r.out, /^ {2}error-rate\s+Failed\s/m, r.out);
        assert.match(r.out, /\n0\n$/, 'the ConfigMap traffic is back at errorRate "0"');
      }
    }
    assert.match(out, /RolledBack/, 'the convoy dev terminal showed the rollback');
    assert.match(out, /traffic simulator: ConfigMap guestbook\/traffic sets errorRate 0\.3/);

    // The error-rate commit was rolled back by the metric, not by the deadline.
    const { stdout: json } = await execFile(kubectl, ['get', 'release', 'guestbook', '-o', 'json'], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
    });
    const rollout = (JSON.parse(json) as Release).status?.rollout;
    assert.equal(rollout?.state, 'RolledBack', JSON.stringify(rollout));
    assert.equal(rollout?.reason, 'VerificationFailed', JSON.stringify(rollout));
    assert.match(rollout?.message ?? '', /error-rate: \[0\.[0-9]+\] met failureCondition/);

    // The Release page draws the check's measurements: a screenshot for the getting-started page.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(ui);
      await page.locator('tr[data-release="default/guestbook"] a').click({ timeout: 60_000 });
      const line = page.getByTestId('verification-line');
      await line.waitFor({ timeout: 60_000 });
      assert.match(
        (await line.textContent()) ?? '',
        /^verification failed:\s*error-rate\s*0\.[0-9]+\s*>\s*0\.05/,
      );
      const section = page.locator('section[aria-labelledby="h-verification"]');
      const chart = section.locator('li[data-check="error-rate"]');
      assert.ok((await chart.locator('circle[data-phase="Failed"]').count()) >= 1, 'a failed point');
      const top = await page.getByRole('heading', { level: 1 }).boundingBox();
      const bottom = await section.boundingBox();
      assert.ok(top !== null && bottom !== null);
      await page.screenshot({
        path: join(SCREENSHOTS, 'dev-verification.png'),
        fullPage: true,
        clip: { x: 0, y: top.y - 8, width: 1280, height: bottom.y + bottom.height - top.y + 16 },
      });
    } finally {
      await browser.close();
    }

    const devDir = printed(out, /^convoy dev: dev dir (\S+)$/m, 'dev dir');
    const cpDir = printed(out, /^convoy dev: control plane up in (\S+)$/m, 'control plane dir');
    const started = pids();
    // etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, the watchdog, Prometheus and
    // convoy's two.
    assert.ok(started.length >= 8, `pids reported: ${started.join(', ')}\n${out}`);
    for (const pid of started) assert.ok(isAlive(pid), `pid ${pid} runs before Ctrl-C`);
    assert.ok(existsSync(devDir) && existsSync(cpDir));

    proc.kill('SIGINT');
    const ended = await exit;
    assert.deepEqual(ended, { code: 0, signal: null }, out);
    assert.match(out, /convoy dev: stopped; nothing left running\.\n$/);
    assert.deepEqual(
      started.filter((pid) => isAlive(pid)),
      [],
      'no process convoy dev started survives it',
    );
    assert.equal(existsSync(devDir), false, `${devDir} is removed`);
    assert.equal(existsSync(cpDir), false, `${cpDir} is removed`);
  });
});
