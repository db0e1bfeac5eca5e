import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, test } from 'node:test';
import { afterDecision, decideReload, type Observed, type ReloadState, type ServingPair } from './reload.ts';
import { selfSignedCert } from './tls.ts';

const FILES = { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' };
let A: ServingPair;
let B: ServingPair;

before(async () => {
  [A, B] = await Promise.all([selfSignedCert(['127.0.0.1'], 1), selfSignedCert(['127.0.0.1'], 1)]);
});

const read = (pair: ServingPair): Observed => ({ kind: 'read', pair });
const fp = (pair: ServingPair) => new X509Certificate(pair.cert).fingerprint256;

test('decideReload: reload a usable new pair, keep the old one on anything broken, warn once', () => {
  const mixed = (): ServingPair => ({ cert: B.cert, key: A.key });
  const cases: {
    name: string;
    state: () => ReloadState;
    observed: () => Observed;
    want: { kind: string; file?: string; reason?: RegExp; fingerprint?: () => string };
  }[] = [
    {
      name: 'same files',
      state: () => ({ served: A }),
      observed: () => read(A),
      want: { kind: 'unchanged' },
    },
    {
      name: 'a new matching pair',
      state: () => ({ served: A }),
      observed: () => read(B),
      want: { kind: 'reload', fingerprint: () => fp(B) },
    },
    {
      name: 'new certificate, old key (half-way through a rotation)',
      state: () => ({ served: A }),
      observed: () => read(mixed()),
      want: {
        kind: 'refuse',
        file: FILES.keyFile,
        reason: /does not belong to the certificate in \/certs\/tls\.crt/,
      },
    },
    {
      name: 'a certificate cut short (half-written)',
      state: () => ({ served: A }),
      observed: () => read({ cert: B.cert.slice(0, 200), key: B.key }),
      want: { kind: 'refuse', file: FILES.certFile, reason: /^not a PEM certificate/ },
    },
    {
      name: 'an empty certificate file',
      state: () => ({ served: A }),
      observed: () => read({ cert: '', key: B.key }),
      want: { kind: 'refuse', file: FILES.certFile, reason: /^not a PEM certificate/ },
    },
    {
      name: 'a key cut short',
      state: () => ({ served: A }),
      observed: () => read({ cert: B.cert, key: B.key.slice(0, 100) }),
      want: { kind: 'refuse', file: FILES.keyFile, reason: /^not a PEM private key/ },
    },
    {
      name: 'a broken certificate after the leaf: each parses, TLS refuses the chain',
      state: () => ({ served: A }),
      observed: () =>
        read({ cert: `${B.cert}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, key: B.key }),
      want: { kind: 'refuse', file: FILES.certFile, reason: /^TLS refuses the pair with \/certs\/tls\.key/ },
    },
    {
      name: 'a file that cannot be read',
      state: () => ({ served: A }),
      observed: () => ({ kind: 'unreadable', file: FILES.keyFile, message: 'ENOENT' }),
      want: { kind: 'refuse', file: FILES.keyFile, reason: /^cannot read it: ENOENT/ },
    },
    {
      name: 'the same broken pair again: no second warning',
      state: () => ({ served: A, refused: read(mixed()) }),
      observed: () => read(mixed()),
      want: { kind: 'stillRefused' },
    },
    {
      name: 'the same unreadable file again',
      state: () => ({ served: A, refused: { kind: 'unreadable', file: FILES.keyFile, message: 'ENOENT' } }),
      observed: () => ({ kind: 'unreadable', file: FILES.keyFile, message: 'ENOENT' }),
      want: { kind: 'stillRefused' },
    },
    {
      name: 'a different broken pair after a refused one: warned about again',
      state: () => ({ served: A, refused: read(mixed()) }),
      observed: () => read({ cert: B.cert, key: 'garbage' }),
      want: { kind: 'refuse', file: FILES.keyFile, reason: /^not a PEM private key/ },
    },
    {
      name: 'the broken pair completed: retried and reloaded',
      state: () => ({ served: A, refused: read(mixed()) }),
      observed: () => read(B),
      want: { kind: 'reload', fingerprint: () => fp(B) },
    },
    {
      name: 'back to the served pair after a refused one',
      state: () => ({ served: A, refused: read(mixed()) }),
      observed: () => read(A),
      want: { kind: 'unchanged' },
    },
  ];
  for (const c of cases) {
    const observed = c.observed();
    const d = decideReload(c.state(), observed, FILES);
    assert.equal(d.kind, c.want.kind, c.name);
    if (d.kind === 'refuse') {
      assert.equal(d.file, c.want.file, c.name);
      assert.match(d.reason, c.want.reason ?? /./, c.name);
    }
    if (d.kind === 'reload') {
      assert.equal(d.fingerprint256, c.want.fingerprint?.(), c.name);
      assert.deepEqual(d.pair, observed.kind === 'read' ? observed.pair : undefined, c.name);
    }
  }
});

test('afterDecision: a reload serves the new pair and forgets the refusal; a refusal is remembered', () => {
  const broken = read({ cert: B.cert, key: A.key });
  const refusedState = afterDecision({ served: A }, broken, decideReload({ served: A }, broken, FILES));
  assert.deepEqual(refusedState, { served: A, refused: broken });
  assert.equal(decideReload(refusedState, broken, FILES).kind, 'stillRefused');
  const reloaded = afterDecision(refusedState, read(B), decideReload(refusedState, read(B), FILES));
  assert.deepEqual(reloaded, { served: B });
  assert.deepEqual(afterDecision(refusedState, read(A), { kind: 'unchanged' }), { served: A });
});
