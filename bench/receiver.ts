// npm run bench:receiver — how quickly a signed push webhook starts a rollout, with
// convoy-controller-manager and convoy-observer as child processes on one local control plane with kwok.
// A Release follows a git branch with syncPolicy.interval 1h (so only the push can start anything) and a
// GitHub Receiver; BENCH_BUSY other Releases (default 3) sync every second beside it, as the other tests
// of test/e2e/notify.test.ts do. Per run: a commit, then the signed push → the times, taken from watch
// events as this process receives them, of the sync-requested-at annotation, the render's Secret in the
// render store (fetch, render, dry run done), the Deployment of the new commit (the first apply), the
// status naming the new revision Progressing, and Succeeded. Prints the medians of BENCH_RUNS runs
// (default 7) and every run, and how many of these ordinary rollouts showed Drifted=True at any moment
// (the drift loop judging an object mid-apply; it should be none). A `git` first on PATH logs every
// git process the controller-manager starts, so each run also says how many read the pushed repository
// between the push and Progressing.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { GitSource } from '../src/render/git/source.ts';
import { makeRepo } from '../src/render/git/testsupport.ts';
import { receiver } from '../test/support/notify.ts';
import { Recorder, type Seen } from '../test/support/recorder.ts';
import { deployment, gitRelease, reached, waitForRollout } from '../test/support/rollout.ts';
import { startConvoySystem } from '../test/support/system.ts';
import { waitFor } from '../test/support/wait.ts';
import { median, secs } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BUSY = Number(process.env.BENCH_BUSY ?? 3);
const KEY = 'bench-hook-key';

// The logging git: "<epoch seconds.micro> <args>" per process (bash's clock, no process of its own).
const shimDir = mkdtempSync(join(tmpdir(), 'convoy-bench-git-'));
const gitLog = join(shimDir, 'log');
const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
writeFileSync(gitLog, '');
writeFileSync(
  join(shimDir, 'git'),
  `#!/bin/bash\nprintf '%s %s\\n' "$EPOCHREALTIME" "$*" >> '${gitLog}'\nexec '${realGit}' "$@"\n`,
  { mode: 0o755 },
);
chmodSync(join(shimDir, 'git'), 0o755);
process.env.PATH = `${shimDir}:${process.env.PATH ?? ''}`;
/** The git processes started in [from, to] (ms since the epoch) whose arguments name one of `marks`. */
const gitProcesses = (from: number, to: number, marks: readonly string[]): string[] =>
  readFileSync(gitLog, 'utf8')
    .split('\n')
    .map((l) => ({ at: Number(l.slice(0, l.indexOf(' '))) * 1000, args: l.slice(l.indexOf(' ') + 1) }))
    .filter((l) => l.at >= from && l.at <= to && marks.some((m) => l.args.includes(m)))
    .map((l) => l.args.split(' ').find((a) => a !== '' && !a.startsWith('-')) ?? '?');

const env = await startConvoySystem({ identity: 'bench-receiver' });
const api = env.manager.api;
const post = (path: string, body: string): Promise<number> =>
  new Promise((resolve, reject) => {
    if (api === undefined) return reject(new Error('the controller-manager runs without its API'));
    const req = request(
      `${api.url}${path}`,
      {
        method: 'POST',
        ca: api.caPem,
        timeout: 30_000,
        headers: {
          'Content-Type': 'application/json',
          'X-GitHub-Event': 'push',
          'X-Hub-Signature-256': `sha256=${createHmac('sha256', KEY).update(body).digest('hex')}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const steps = ['annotation', 'renderStored', 'firstApply', 'progressing', 'succeeded'] as const;
type Step = (typeof steps)[number];
const figures: Record<Step, number[]> = {
  annotation: [],
  renderStored: [],
  firstApply: [],
  progressing: [],
  succeeded: [],
};
const repos: { cleanup(): Promise<void> }[] = [];
const spawned: number[] = [];
let drifted = 0;
try {
  const { client, cp } = env;
  const ns = 'bench-receiver';
  await env.namespace(ns);
  // The other Releases syncing every second, each from its own repository.
  for (let i = 0; i < BUSY; i++) {
    const busy = await makeRepo(`busy-${i}`);
    repos.push(busy);
    await busy.commit({ 'app/web.yaml': deployment(`busy-${i}`, 'v1', 'healthy') });
    await client.create(gitRelease(ns, `busy-${i}`, busy));
  }
  const repo = await makeRepo('pushed');
  repos.push(repo);
  const clone = new GitSource({ cacheDir: join(env.work, 'git-cache'), allowFileUrls: true }).clonePath(
    repo.url,
  );
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ns, name: 'hook' },
    stringData: { token: KEY },
  } as never);
  await client.create(receiver(ns, 'github', { type: 'github', secretRef: { name: 'hook' } }));
  const sha1 = await repo.commit({ 'app/web.yaml': deployment('web', 'v0', 'healthy') });
  await client.create(gitRelease(ns, 'app', repo, { syncPolicy: { interval: '1h' } }));
  await waitForRollout(client, ns, 'app', 'Succeeded(first commit)', reached('Succeeded', sha1), 120_000);
  const rec = new Recorder(cp.kubeConfig, [
    {
      kind: 'Release',
      path: `/apis/${API_VERSION}/namespaces/${ns}/releases`,
      fieldSelector: 'metadata.name=app',
    },
    {
      kind: 'Deployment',
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      fieldSelector: 'metadata.name=web',
    },
    { kind: 'Secret', path: `/api/v1/namespaces/${ns}/secrets` },
  ]);
  await rec.start();
  try {
    for (let run = 1; run <= RUNS; run++) {
      const tag = `v${run}`;
      const sha = await repo.commit({ 'app/web.yaml': deployment('web', tag, 'healthy') });
      const before = (
        await client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: ns, name: 'app' })
      )?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
      const from = rec.events.length;
      const body = JSON.stringify({
        ref: 'refs/heads/main',
        after: sha,
        repository: { clone_url: repo.url, default_branch: 'main' },
      });
      const t0 = Date.now();
      const code = await post(`/hook/${ns}/github`, body);
      if (code !== 202) throw new Error(`the push got HTTP ${code}, not 202`);
      await waitForRollout(client, ns, 'app', `Succeeded(${tag})`, reached('Succeeded', sha), 120_000);
      const first = (what: string, ok: (s: Seen) => boolean) =>
        waitFor(`${what} (run ${run})`, async () => rec.events.slice(from).find(ok)?.at, {
          timeoutMs: 10_000,
        });
      const rel = (s: Seen) => (s.kind === 'Release' ? (s.object as unknown as Release) : undefined);
      const at: Record<Step, number> = {
        annotation: await first('the annotation', (s) => {
          const a = rel(s)?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
          return a !== undefined && a !== before;
        }),
        renderStored: await first('the render stored', (s) => s.kind === 'Secret' && s.type === 'add'),
        firstApply: await first(
          'the first apply',
          (s) =>
            s.kind === 'Deployment' &&
            (s.object as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } })
              .spec?.template?.metadata?.annotations?.['example.com/tag'] === tag,
        ),
        progressing: await first('Progressing', (s) => {
          const r = rel(s)?.status?.rollout;
          return r?.revision === sha && r.state === 'Progressing';
        }),
        succeeded: await first('Succeeded', (s) => {
          const r = rel(s)?.status?.rollout;
          return r?.revision === sha && r.state === 'Succeeded';
        }),
      };
      for (const s of steps) figures[s].push(at[s] - t0);
      const gits = gitProcesses(t0, at.progressing, [clone, repo.url]);
      spawned.push(gits.length);
      if (
        rec.events
          .slice(from)
          .some((s) => rel(s)?.status?.conditions?.some((c) => c.type === 'Drifted' && c.status === 'True'))
      )
        drifted++;
      console.error(
        `run ${run}: ${steps.map((s) => `${s} ${secs(at[s] - t0)} s`).join(', ')}; git push → Progressing: ${gits.join(' ')}`,
      );
    }
  } finally {
    await rec.stop();
  }
  console.log(
    JSON.stringify(
      {
        runs: RUNS,
        busyReleases: BUSY,
        medianSecondsFromPush: Object.fromEntries(steps.map((s) => [s, secs(median(figures[s]))])),
        maxSecondsFromPush: Object.fromEntries(steps.map((s) => [s, secs(Math.max(...figures[s]))])),
        allSecondsPushToProgressing: figures.progressing.map(secs),
        allSecondsPushToSucceeded: figures.succeeded.map(secs),
        gitProcessesPushToProgressing: spawned,
        rolloutsShowingDrifted: drifted,
      },
      null,
      2,
    ),
  );
} catch (err) {
  console.error(`${errorMessage(err)}\n${env.logs()}`);
  process.exitCode = 1;
} finally {
  for (const r of repos) await r.cleanup();
  await env.stop();
  rmSync(shimDir, { recursive: true, force: true });
}
