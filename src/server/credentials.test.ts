import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bearerToken,
  DEFAULT_REQUEST_HEADERS,
  identityFromHeaders,
  parseRequestHeaderConfigMap,
  proxyCertAllowed,
} from './credentials.ts';

test('bearerToken', () => {
  assert.deepEqual(bearerToken(undefined), { kind: 'none' });
  assert.deepEqual(bearerToken(''), { kind: 'none' });
  assert.deepEqual(bearerToken('Bearer abc.def'), { kind: 'token', token: 'abc.def' });
  assert.deepEqual(bearerToken('bearer  abc '), { kind: 'token', token: 'abc' });
  assert.equal(bearerToken('Basic dXNlcjpwdw==').kind, 'malformed');
  assert.equal(bearerToken('Bearer').kind, 'malformed');
  assert.equal(bearerToken('Bearer a b').kind, 'malformed');
});

test('proxyCertAllowed: empty list allows any CA-signed cert; else the CN must be listed', () => {
  assert.equal(proxyCertAllowed('anything', []), true);
  assert.equal(proxyCertAllowed(undefined, []), true);
  assert.equal(proxyCertAllowed('front-proxy-client', ['front-proxy-client']), true);
  assert.equal(proxyCertAllowed('kubelet', ['front-proxy-client']), false);
  assert.equal(proxyCertAllowed(undefined, ['front-proxy-client']), false);
});

const cfg = DEFAULT_REQUEST_HEADERS;

test('identityFromHeaders: user, uid, every group header value, extras decoded and case-folded', () => {
  assert.deepEqual(
    identityFromHeaders(
      {
        'x-remote-user': ['alice'],
        'x-remote-uid': ['u-1'],
        'x-remote-group': ['devs', 'system:authenticated'],
        'x-remote-extra-scopes': ['a', 'b'],
        'x-remote-extra-example.org%2fteam': ['web'],
        authorization: ['Bearer ignored'],
      },
      cfg,
    ),
    {
      username: 'alice',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a', 'b'], 'example.org/team': ['web'] },
    },
  );
});

test('identityFromHeaders: no user header, or an empty one, names nobody', () => {
  assert.equal(identityFromHeaders({ 'x-remote-group': ['devs'] }, cfg), undefined);
  assert.equal(identityFromHeaders({ 'x-remote-user': [' '] }, cfg), undefined);
});

test('identityFromHeaders: configured header names, first user header that is set wins', () => {
  const custom = {
    usernameHeaders: ['X-User', 'X-Remote-User'],
    uidHeaders: [],
    groupHeaders: ['X-Groups', 'X-More-Groups'],
    extraHeaderPrefixes: ['X-Extra-'],
  };
  assert.deepEqual(
    identityFromHeaders(
      { 'x-remote-user': ['bob'], 'x-groups': ['a'], 'x-more-groups': ['b'], 'x-remote-uid': ['ignored'] },
      custom,
    ),
    { username: 'bob', groups: ['a', 'b'], extra: {} },
  );
});

test('parseRequestHeaderConfigMap: the keys kube-apiserver publishes, JSON lists', () => {
  const r = parseRequestHeaderConfigMap({
    'client-ca-file': 'CLIENT CA',
    'requestheader-client-ca-file': 'PROXY CA',
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    'requestheader-uid-headers': '["X-Remote-Uid"]',
  });
  assert.deepEqual(r, {
    ok: true,
    value: {
      clientCA: 'PROXY CA',
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: ['X-Remote-Uid'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    },
  });
});

test('parseRequestHeaderConfigMap: no front proxy configured, defaults, and bad lists', () => {
  assert.deepEqual(parseRequestHeaderConfigMap(undefined), { ok: true, value: undefined });
  assert.deepEqual(parseRequestHeaderConfigMap({ 'client-ca-file': 'X' }), { ok: true, value: undefined });
  const minimal = parseRequestHeaderConfigMap({ 'requestheader-client-ca-file': 'CA' });
  assert.deepEqual(minimal, {
    ok: true,
    value: {
      clientCA: 'CA',
      allowedNames: [],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: [],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    },
  });
  const bad = parseRequestHeaderConfigMap({
    'requestheader-client-ca-file': 'CA',
    'requestheader-allowed-names': 'front-proxy-client',
  });
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.match(bad.message, /requestheader-allowed-names is not a JSON list/);
});
