// The example app `convoy dev` rolls out: examples/<app>/ copied into a fresh git repository (the
// user commits to it to try a broken change), and the Release that follows its main branch with the
// default health rules, a rollback on failure and (with a Prometheus) a verification check on the
// simulated error rate that its ConfigMap `traffic` sets; and the Helm and Kustomize examples, each with the
// Release of its release.yaml. Tests build the same Release, so what they prove is
// what a new user runs.
import { execFile as execFileCb } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { API_VERSION } from '../api/constants.ts';
import type { Release } from '../api/types.ts';

const execFile = promisify(execFileCb);

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/', import.meta.url));
export const EXAMPLE_APP = 'guestbook';
/** The manifests' folder inside an example (and so inside its repository): spec.source.git.path. */
export const EXAMPLE_MANIFESTS = 'manifests';
/** The change that breaks the example: the Deployment's pods never become Ready. */
export const BROKEN_PATCH = 'broken.patch';
/** The change that makes the example fail verification: its pods stay Ready, 30 % of requests fail. */
export const ERROR_RATE_PATCH = 'error-rate.patch';
/** The example's ConfigMap that sets the traffic simulator's error rate and latency (traffic-sim.ts). */
export const TRAFFIC_CONFIGMAP = 'traffic';
/** The check's query: the share of the simulated requests that failed over the last 4 s. */
export const ERROR_RATIO_QUERY =
  'sum(rate(http_requests_total{code="500"}[4s])) / sum(rate(http_requests_total[4s]))';
/** How long the example's verification measures a healthy render before it counts as Succeeded. */
export const EXAMPLE_SOAK = '20s';

export interface ExampleReleaseOptions {
  readonly name: string;
  readonly namespace: string;
  /** file:// URL of the repository (the controller-manager needs --allow-file-urls). */
  readonly url: string;
  /** The app's namespace, created by the render. */
  readonly targetNamespace: string;
  /** failurePolicy.deadline (default 1m). */
  readonly rolloutDeadline?: string;
  /** syncPolicy.interval: how soon a new commit is picked up (default 10s). */
  readonly interval?: string;
  /** A Prometheus scraping the traffic simulator: adds spec.verification with the error-rate check. */
  readonly prometheus?: string;
}

/** One check on the simulated error ratio: a measurement every 2 s over the soak, one failure is final. */
export function exampleVerification(prometheus: string): NonNullable<Release['spec']['verification']> {
  return {
    soak: EXAMPLE_SOAK,
    interval: '2s',
    // The query's 4 s window then covers the new render only.
    initialDelay: '5s',
    checks: [
      {
        name: 'error-rate',
        prometheus: { address: prometheus, query: ERROR_RATIO_QUERY, timeout: '3s' },
        successCondition: 'result[0] <= 0.05',
        failureCondition: 'result[0] > 0.05',
        failureLimit: 1,
        inconclusiveLimit: 2,
      },
    ],
  };
}

export function exampleRelease(o: ExampleReleaseOptions): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: o.name, namespace: o.namespace },
    spec: {
      source: { git: { url: o.url, ref: { branch: 'main' }, path: EXAMPLE_MANIFESTS } },
      render: { targetNamespace: o.targetNamespace },
      syncPolicy: { mode: 'Auto', interval: o.interval ?? '10s', prune: true },
      waves: [{ wave: 1, healthStrategy: 'WaitPrevious' }],
      healthAssessment: {
        deadline: '30s',
        globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
      },
      failurePolicy: { deadline: o.rolloutDeadline ?? '1m', rollback: 'OnFailure' },
      ...(o.prometheus === undefined ? {} : { verification: exampleVerification(o.prometheus) }),
    },
  };
}

/** The examples rendered by a tool, each with the Release it needs in examples/<app>/release.yaml. */
export const TOOL_EXAMPLES = ['helm', 'kustomize'] as const;
export type ToolExample = (typeof TOOL_EXAMPLES)[number];

/** examples/<app>/release.yaml following the repository at `url`, in `namespace`. */
export async function toolExampleRelease(app: ToolExample, url: string, namespace: string): Promise<Release> {
  const r = parse(await readFile(join(EXAMPLES_DIR, app, 'release.yaml'), 'utf8')) as Release;
  const git = r.spec.source.git;
  if (git === undefined) throw new Error(`examples/${app}/release.yaml has no spec.source.git`);
  return {
    ...r,
    metadata: { ...r.metadata, namespace },
    spec: { ...r.spec, source: { git: { ...git, url } } },
  };
}

/** Runs git with a fixed identity, so a machine without git config still commits. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFile('git', args, {
    cwd: dir,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'convoy dev',
      GIT_AUTHOR_EMAIL: 'dev@convoy.invalid',
      GIT_COMMITTER_NAME: 'convoy dev',
      GIT_COMMITTER_EMAIL: 'dev@convoy.invalid',
    },
  });
  return stdout.trim();
}

/** Copies examples/<app>/ to `dir` and commits it on branch main; returns the repository's file:// URL. */
export async function initExampleRepo(dir: string, app = EXAMPLE_APP): Promise<string> {
  await cp(join(EXAMPLES_DIR, app), dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  // The repository's own identity, so the user's `git commit` (the break step) works on a machine
  // without a git identity, and never with theirs by surprise.
  await git(dir, 'config', 'user.name', 'convoy dev');
  await git(dir, 'config', 'user.email', 'dev@convoy.invalid');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', `The ${app} example`);
  return pathToFileURL(dir).href;
}

/** What `convoy dev` tells the user to paste: applies one of the example's patches and commits it. */
function patchCommand(repoDir: string, patch: string, subject: string): string {
  return `git -C ${repoDir} apply ${patch} && git -C ${repoDir} commit -qam "${subject}"`;
}

/** The commit that breaks the frontend (broken.patch). */
export const breakCommand = (repoDir: string) => patchCommand(repoDir, BROKEN_PATCH, 'Break the frontend');

/** The commit that raises the error rate (error-rate.patch). */
export const errorRateCommand = (repoDir: string) =>
  patchCommand(repoDir, ERROR_RATE_PATCH, 'Raise the error rate');
