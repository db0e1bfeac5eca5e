// Push verification and matching as tables: signatures of each receiver type (good, wrong, missing),
// what a push names, repository URLs spelt differently, which Releases follow a push; the rate limiter.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { Release } from '../api/types.ts';
import { RateLimiter } from './rate-limit.ts';
import { followsPush, normalizeRepoUrl, verifyPush } from './receiver.ts';

const TOKEN = 'sh4red';
const sig = (body: string, key = TOKEN) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
const github = JSON.stringify({
  ref: 'refs/heads/main',
  repository: {
    clone_url: 'https://github.com/Acme/web.git',
    ssh_url: 'git@github.com:Acme/web.git',
    default_branch: 'main',
  },
});
const gitlab = JSON.stringify({
  ref: 'refs/heads/dev',
  project: { git_http_url: 'https://gitlab.example/grp/web.git', default_branch: 'main' },
});
const generic = JSON.stringify({ repository: 'file:///srv/repos/web', branch: 'main' });

test('verifyPush: each type accepts its own signature only', () => {
  const b = (s: string) => Buffer.from(s);
  const cases: ReadonlyArray<
    readonly [string, ReturnType<typeof verifyPush>['kind'], ReturnType<typeof verifyPush>]
  > = [
    [
      'github signed',
      'push',
      verifyPush(
        'github',
        TOKEN,
        { 'x-hub-signature-256': sig(github), 'x-github-event': 'push' },
        b(github),
      ),
    ],
    [
      'github wrong key',
      'unauthorized',
      verifyPush('github', TOKEN, { 'x-hub-signature-256': sig(github, 'other') }, b(github)),
    ],
    ['github no signature', 'unauthorized', verifyPush('github', TOKEN, {}, b(github))],
    [
      'github body changed after signing',
      'unauthorized',
      verifyPush('github', TOKEN, { 'x-hub-signature-256': sig(github) }, b(`${github} `)),
    ],
    [
      'github ping',
      'ignored',
      verifyPush('github', TOKEN, { 'x-hub-signature-256': sig('{}'), 'x-github-event': 'ping' }, b('{}')),
    ],
    [
      'gitlab token',
      'push',
      verifyPush('gitlab', TOKEN, { 'x-gitlab-token': TOKEN, 'x-gitlab-event': 'Push Hook' }, b(gitlab)),
    ],
    [
      'gitlab wrong token',
      'unauthorized',
      verifyPush('gitlab', TOKEN, { 'x-gitlab-token': 'sh4rex' }, b(gitlab)),
    ],
    [
      'gitlab tag push',
      'ignored',
      verifyPush('gitlab', TOKEN, { 'x-gitlab-token': TOKEN, 'x-gitlab-event': 'Tag Push Hook' }, b(gitlab)),
    ],
    [
      'generic signed',
      'push',
      verifyPush('generic', TOKEN, { 'x-convoy-signature': sig(generic) }, b(generic)),
    ],
    [
      'generic not JSON',
      'invalid',
      verifyPush('generic', TOKEN, { 'x-convoy-signature': sig('nope') }, b('nope')),
    ],
  ];
  for (const [what, want, got] of cases) assert.equal(got.kind, want, what);
  const gh = cases[0]?.[2];
  assert.deepEqual(gh, {
    kind: 'push',
    repositories: ['github.com/Acme/web'],
    branch: 'main',
    defaultBranch: 'main',
  });
  for (const [, , got] of cases) assert.ok(!JSON.stringify(got).includes(TOKEN));
});

test('normalizeRepoUrl: one form for every spelling of a repository', () => {
  assert.deepEqual(
    [
      'https://github.com/Acme/web.git',
      'https://GitHub.com/Acme/web/',
      'git@github.com:Acme/web.git',
      'ssh://git@github.com/Acme/web',
      'file:///srv/repos/web.git',
    ].map(normalizeRepoUrl),
    [
      'github.com/Acme/web',
      'github.com/Acme/web',
      'github.com/Acme/web',
      'github.com/Acme/web',
      'file:/srv/repos/web',
    ],
  );
});

test('followsPush: same repository and branch; no ref follows the default branch; tags and commits never', () => {
  const push = {
    kind: 'push' as const,
    repositories: ['github.com/Acme/web'],
    branch: 'main',
    defaultBranch: 'main',
  };
  const rel = (git: NonNullable<Release['spec']['source']['git']> | undefined): Pick<Release, 'spec'> => ({
    spec: { source: git === undefined ? { inline: { manifests: 'x' } } : { git } },
  });
  const url = 'git@github.com:Acme/web.git';
  const cases: ReadonlyArray<readonly [string, Pick<Release, 'spec'>, boolean]> = [
    ['branch main', rel({ url, ref: { branch: 'main' } }), true],
    ['branch dev', rel({ url, ref: { branch: 'dev' } }), false],
    ['no ref, default branch pushed', rel({ url }), true],
    ['a tag', rel({ url, ref: { tag: 'v1' } }), false],
    ['another repository', rel({ url: 'https://github.com/Acme/api', ref: { branch: 'main' } }), false],
    ['inline source', rel(undefined), false],
  ];
  for (const [what, r, want] of cases) assert.equal(followsPush(r, push), want, what);
  assert.equal(followsPush(rel({ url }), { ...push, branch: 'dev' }), false);
});

test('RateLimiter: a burst per key, refilled over time; one key over its limit does not starve another', () => {
  let t = 0;
  const l = new RateLimiter({
    burst: 2,
    ratePerSecond: 1,
    globalBurst: 3,
    globalRatePerSecond: 10,
    now: () => t,
  });
  assert.deepEqual([l.take('a'), l.take('a'), l.take('a')], [true, true, false]);
  assert.equal(l.take('b'), true);
  assert.equal(l.take('b'), false, 'global burst spent');
  t += 1000;
  assert.equal(l.take('a'), true);
});
