import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, test } from 'node:test';
import { DEFAULT_REQUEST_HEADERS, type RequestHeaderConfig } from './credentials.ts';
import { makeTestCa, type TestCa } from './testsupport.ts';
import {
  afterTrustDecision,
  chainReachesCa,
  decideTrust,
  type Handshake,
  parseCaBundle,
  proxyCertTrusted,
  type TrustRead,
  type TrustState,
} from './trust.ts';

let caA: TestCa;
let caB: TestCa;

before(async () => {
  [caA, caB] = await Promise.all([makeTestCa('front-proxy-ca-a'), makeTestCa('front-proxy-ca-b')]);
});
after(async () => {
  await caA?.dispose();
  await caB?.dispose();
});

const config = (clientCA: string, allowedNames = ['front-proxy-client']): RequestHeaderConfig => ({
  clientCA,
  allowedNames,
  ...DEFAULT_REQUEST_HEADERS,
  uidHeaders: [],
});
const readOf = (value: RequestHeaderConfig | undefined): TrustRead => ({
  kind: 'read',
  parsed: { ok: true, value },
});
const fp = (pem: string) => new X509Certificate(pem).fingerprint256;

test('decideTrust: follow a rotated CA or changed names, withdraw when unpublished, keep on bad reads', () => {
  const cases: {
    name: string;
    state: () => TrustState;
    read: () => TrustRead;
    want: { kind: string; cas?: () => string[]; problem?: RegExp };
  }[] = [
    {
      name: 'the same settings',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(config(caA.cert)),
      want: { kind: 'unchanged' },
    },
    {
      name: 'a rotated CA',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(config(caB.cert)),
      want: { kind: 'update', cas: () => [fp(caB.cert)] },
    },
    {
      name: 'a bundle of old and new (kube-apiserver keeps both until the old expires)',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(config(`${caA.cert}${caB.cert}`)),
      want: { kind: 'update', cas: () => [fp(caA.cert), fp(caB.cert)] },
    },
    {
      name: 'the same CA, other allowed names',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(config(caA.cert, ['another-proxy'])),
      want: { kind: 'update', cas: () => [fp(caA.cert)] },
    },
    {
      name: 'settings appear where there were none',
      state: () => ({ current: undefined }),
      read: () => readOf(config(caA.cert)),
      want: { kind: 'update', cas: () => [fp(caA.cert)] },
    },
    {
      name: 'the ConfigMap no longer names a CA: trust none',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(undefined),
      want: { kind: 'update' },
    },
    {
      name: 'still none',
      state: () => ({ current: undefined }),
      read: () => readOf(undefined),
      want: { kind: 'unchanged' },
    },
    {
      name: 'a CA that is not PEM: keep the old one',
      state: () => ({ current: config(caA.cert) }),
      read: () => readOf(config('not a certificate')),
      want: { kind: 'keep', problem: /^requestheader-client-ca-file: no PEM certificate/ },
    },
    {
      name: 'a list that is not JSON: keep',
      state: () => ({ current: config(caA.cert) }),
      read: () => ({
        kind: 'read',
        parsed: { ok: false, message: 'requestheader-allowed-names is not a JSON list' },
      }),
      want: { kind: 'keep', problem: /^requestheader-allowed-names is not a JSON list/ },
    },
    {
      name: 'the API cannot be reached: keep',
      state: () => ({ current: config(caA.cert) }),
      read: () => ({ kind: 'failed', message: 'ECONNREFUSED' }),
      want: { kind: 'keep', problem: /^reading it failed: ECONNREFUSED/ },
    },
    {
      name: 'the same failure again: no second warning',
      state: () => ({ current: config(caA.cert), problem: 'reading it failed: ECONNREFUSED' }),
      read: () => ({ kind: 'failed', message: 'ECONNREFUSED' }),
      want: { kind: 'stillKept' },
    },
  ];
  for (const c of cases) {
    const d = decideTrust(c.state(), c.read());
    assert.equal(d.kind, c.want.kind, c.name);
    if (d.kind === 'update') {
      assert.deepEqual(
        d.trust?.cas.map((x) => x.fingerprint256),
        c.want.cas?.(),
        c.name,
      );
    }
    if (d.kind === 'keep') assert.match(d.problem, c.want.problem ?? /./, c.name);
  }
});

test('afterTrustDecision: an update replaces the settings and clears the problem; a keep remembers it', () => {
  const old = config(caA.cert);
  const failed: TrustRead = { kind: 'failed', message: 'timeout' };
  const kept = afterTrustDecision({ current: old }, decideTrust({ current: old }, failed));
  assert.deepEqual(kept, { current: old, problem: 'reading it failed: timeout' });
  const rotated = readOf(config(caB.cert));
  assert.deepEqual(afterTrustDecision(kept, decideTrust(kept, rotated)), { current: config(caB.cert) });
  assert.deepEqual(afterTrustDecision(kept, decideTrust(kept, readOf(old))), { current: old });
});

test('parseCaBundle: every certificate of a bundle; none is an error', () => {
  assert.equal(parseCaBundle(`${caA.cert}\n${caB.cert}`).length, 2);
  assert.throws(() => parseCaBundle(''), /no PEM certificate/);
  assert.throws(() => parseCaBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'));
});

test('chainReachesCa: a proxy certificate counts only under a CA trusted now', async () => {
  const leafA = new X509Certificate((await caA.issue('front-proxy-client')).cert);
  const a = parseCaBundle(caA.cert);
  const b = parseCaBundle(caB.cert);
  assert.equal(chainReachesCa([leafA], a), true);
  assert.equal(chainReachesCa([leafA], b), false, 'signed by the rotated-out CA');
  assert.equal(chainReachesCa([leafA], [...b, ...a]), true, 'a bundle with both');
  assert.equal(chainReachesCa([leafA, ...a], b), false, 'the old root in the presented chain proves nothing');
  assert.equal(chainReachesCa([leafA, ...a], a), true);
  assert.equal(chainReachesCa([], a), false);
});

test('proxyCertTrusted: the handshake verdict re-checked against the CAs trusted now', async () => {
  const leafA = new X509Certificate((await caA.issue('front-proxy-client')).cert);
  const serverOnlyA = new X509Certificate(
    (await caA.issue('front-proxy-client', { extendedKeyUsage: 'serverAuth' })).cert,
  );
  const a = parseCaBundle(caA.cert);
  const b = parseCaBundle(caB.cert);
  const now = new Date();
  const verified: Handshake = { authorized: true };
  const unknownIssuer: Handshake = { authorized: false, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' };
  const cases: {
    name: string;
    chain: X509Certificate[];
    hs: Handshake;
    cas: X509Certificate[];
    at?: Date;
    want: boolean;
  }[] = [
    { name: 'verified, CA still trusted', chain: [leafA], hs: verified, cas: a, want: true },
    { name: 'verified under a CA since rotated out', chain: [leafA], hs: verified, cas: b, want: false },
    {
      name: 'unknown issuer then, trusted now (rotated in since the handshake)',
      chain: [leafA],
      hs: unknownIssuer,
      cas: a,
      want: true,
    },
    {
      name: 'unknown issuer then, OpenSSL wording for a missing local issuer',
      chain: [leafA],
      hs: { authorized: false, error: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' },
      cas: [...b, ...a],
      want: true,
    },
    { name: 'unknown issuer then and now', chain: [leafA], hs: unknownIssuer, cas: b, want: false },
    {
      name: 'refused for another reason (expired)',
      chain: [leafA],
      hs: { authorized: false, error: 'CERT_HAS_EXPIRED' },
      cas: a,
      want: false,
    },
    {
      name: 'refused without a reason (no certificate)',
      chain: [leafA],
      hs: { authorized: false },
      cas: a,
      want: false,
    },
    {
      name: 'unknown issuer then, but expired by now',
      chain: [leafA],
      hs: unknownIssuer,
      cas: a,
      at: new Date(now.getTime() + 3 * 24 * 3600 * 1000),
      want: false,
    },
    {
      name: 'unknown issuer then, not a client certificate',
      chain: [serverOnlyA],
      hs: unknownIssuer,
      cas: a,
      want: false,
    },
    {
      name: 'the CA itself presented as the client certificate',
      chain: a,
      hs: unknownIssuer,
      cas: a,
      want: false,
    },
    { name: 'no certificate at all', chain: [], hs: unknownIssuer, cas: a, want: false },
  ];
  for (const c of cases) assert.equal(proxyCertTrusted(c.chain, c.hs, c.cas, c.at ?? now), c.want, c.name);
});
