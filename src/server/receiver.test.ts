// Push verification and matching as tables: signatures of each receiver type (good, wrong, missing),
// what a push names, repository URLs spelt differently, which Releases follow a push; the rate limiter.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { Release } from '../api/types.ts';
import { RateLimiter } from './rate-limit.ts';
import { followsPush, normalizeRepoUrl, verifyPush } from './receiver.ts';

const TOKEN = 'sh4red';
const NOW = Date.parse('2026-12-06T08:00:00Z');
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
        NOW,
      ),
    ],
    [
      'github wrong key',
      'unauthorized',
      verifyPush('github', TOKEN, { 'x-hub-signature-256': sig(github, 'other') }, b(github), NOW),
    ],
    ['github no signature', 'unauthorized', verifyPush('github', TOKEN, {}, b(github), NOW)],
    [
      'github body changed after signing',
      'unauthorized',
      verifyPush('github', TOKEN, { 'x-hub-signature-256': sig(github) }, b(`${github} `), NOW),
    ],
    [
      'github ping',
      'ignored',
      verifyPush(
        'github',
        TOKEN,
        { 'x-hub-signature-256': sig('{}'), 'x-github-event': 'ping' },
        b('{}'),
        NOW,
      ),
    ],
    [
      'gitlab token',
      'push',
      verifyPush('gitlab', TOKEN, { 'x-gitlab-token': TOKEN, 'x-gitlab-event': 'Push Hook' }, b(gitlab), NOW),
    ],
    [
      'gitlab wrong token',
      'unauthorized',
      verifyPush('gitlab', TOKEN, { 'x-gitlab-token': 'sh4rex' }, b(gitlab), NOW),
    ],
    [
      'gitlab tag push',
      'ignored',
      verifyPush(
        'gitlab',
        TOKEN,
        { 'x-gitlab-token': TOKEN, 'x-gitlab-event': 'Tag Push Hook' },
        b(gitlab),
        NOW,
      ),
    ],
    [
      'generic signed',
      'push',
      verifyPush('generic', TOKEN, { 'x-convoy-signature': sig(generic) }, b(generic), NOW),
    ],
    [
      'generic not JSON',
      'invalid',
      verifyPush('generic', TOKEN, { 'x-convoy-signature': sig('nope') }, b('nope'), NOW),
    ],
  ];
  for (const [what, want, got] of cases) assert.equal(got.kind, want, what);
  const gh = cases[0]?.[2];
  assert.deepEqual(gh, {
    kind: 'push',
    repositories: ['github.com/Acme/web'],
    branch: 'main',
    defaultBranch: 'main',
    deliveryKeys: [`body:${createHash('sha256').update(github).digest('hex')}`],
  });
  for (const [, , got] of cases) assert.ok(!JSON.stringify(got).includes(TOKEN));
});

test('verifyPush: a field of the wrong type is refused naming the field and the type it needs', () => {
  const generic = (body: object) => {
    const text = JSON.stringify(body);
    return verifyPush('generic', TOKEN, { 'x-convoy-signature': sig(text) }, Buffer.from(text), NOW);
  };
  const github = (body: object) => {
    const text = JSON.stringify(body);
    return verifyPush('github', TOKEN, { 'x-hub-signature-256': sig(text) }, Buffer.from(text), NOW);
  };
  const repository = 'https://github.com/Acme/web.git';
  const cases: ReadonlyArray<readonly [string, ReturnType<typeof verifyPush>, string]> = [
    [
      'branch an array',
      generic({ repository, branch: ['x'] }),
      'field "branch" must be a non-empty string, got an array',
    ],
    [
      'branch a number',
      generic({ repository, branch: 7 }),
      'field "branch" must be a non-empty string, got a number',
    ],
    [
      'branch empty',
      generic({ repository, branch: '' }),
      'field "branch" must be a non-empty string, got an empty string',
    ],
    [
      'repository an object',
      generic({ repository: {}, branch: 'main' }),
      'field "repository" must be a non-empty string, got an object',
    ],
    ['no ref at all', generic({ repository }), 'the push names no ref (or branch)'],
    [
      'github ref null',
      github({ ref: null, repository: { clone_url: repository } }),
      'field "ref" must be a non-empty string, got null',
    ],
    [
      'timestamp a boolean',
      generic({ repository, branch: 'main', timestamp: true }),
      'field "timestamp" must be seconds since the epoch (a number) or an RFC 3339 time (a string), got a boolean',
    ],
    [
      'timestamp a date without a time',
      generic({ repository, branch: 'main', timestamp: 'yesterday' }),
      'field "timestamp" must be seconds since the epoch (a number) or an RFC 3339 time (a string), got "yesterday"',
    ],
  ];
  for (const [what, got, why] of cases) assert.deepEqual(got, { kind: 'invalid', why }, what);
});

test('verifyPush: the keys that make a second delivery a replay, and the timestamp window', () => {
  const keysOf = (v: ReturnType<typeof verifyPush>) => (v.kind === 'push' ? v.deliveryKeys : v);
  const digest = (text: string) => `body:${createHash('sha256').update(text).digest('hex')}`;
  const generic = (body: object) => {
    const text = JSON.stringify(body);
    return [
      text,
      verifyPush('generic', TOKEN, { 'x-convoy-signature': sig(text) }, Buffer.from(text), NOW),
    ] as const;
  };
  const repository = 'file:///srv/repos/web';
  // GitHub: the delivery id and the body (an attacker can change the unsigned header, not the body).
  const gh = verifyPush(
    'github',
    TOKEN,
    { 'x-hub-signature-256': sig(github), 'x-github-delivery': 'd-1' },
    Buffer.from(github),
    NOW,
  );
  assert.deepEqual(keysOf(gh), ['id:d-1', digest(github)]);
  assert.equal(gh.kind === 'push' ? gh.deliveryIdFrom : undefined, 'X-GitHub-Delivery');
  const gl = verifyPush(
    'gitlab',
    TOKEN,
    { 'x-gitlab-token': TOKEN, 'x-gitlab-event-uuid': 'u-9' },
    Buffer.from(gitlab),
    NOW,
  );
  assert.deepEqual(keysOf(gl), ['id:u-9', digest(gitlab)]);
  // Generic: a body with neither may be sent again on purpose (the branch pushed twice).
  assert.deepEqual(keysOf(generic({ repository, branch: 'main' })[1]), []);
  const [stamped, withTime] = generic({ repository, branch: 'main', timestamp: NOW / 1000 - 30 });
  assert.deepEqual(keysOf(withTime), [digest(stamped)]);
  const [named, withId] = generic({ repository, branch: 'main', delivery: 'ci-42' });
  assert.deepEqual(keysOf(withId), ['id:ci-42', digest(named)]);
  const [rfc, withRfc] = generic({ repository, branch: 'main', timestamp: '2026-12-06T08:04:00Z' });
  assert.deepEqual(keysOf(withRfc), [digest(rfc)], 'an RFC 3339 timestamp within the window');
  for (const late of [NOW / 1000 - 301, NOW / 1000 + 301, '2026-12-06T07:54:59Z']) {
    const [, v] = generic({ repository, branch: 'main', timestamp: late });
    assert.equal(v.kind, 'unauthorized', String(late));
    assert.match(
      v.kind === 'unauthorized' ? v.why : '',
      /^field "timestamp" is 30\d s from this server's clock/,
    );
  }
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
