// setDefaultTrust in a Node started as bin/convoy starts it (--use-openssl-ca): Node's own default
// (bundled roots and NODE_EXTRA_CA_CERTS) back, or only the API server's CA; untouched without the flag.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeTestCa } from '../server/testsupport.ts';
import { pemCertificates } from './trust.ts';

const TRUST = fileURLToPath(new URL('./trust.ts', import.meta.url));

/** tls.getCACertificates('default') after setDefaultTrust(ca) in a fresh Node, as PEM strings. */
function defaults(flags: readonly string[], ca: string | undefined, env: NodeJS.ProcessEnv = {}): string[] {
  const script = `const { setDefaultTrust } = await import(${JSON.stringify(TRUST)});
setDefaultTrust(${ca === undefined ? 'undefined' : `Buffer.from(${JSON.stringify(ca)})`});
process.stdout.write(JSON.stringify(process.getBuiltinModule('node:tls').getCACertificates('default')));`;
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

const norm = (pems: readonly string[]) => pems.map((p) => p.replace(/\s+/g, '')).sort();

test('with --use-openssl-ca, no CA gives back what Node trusts without the flag, NODE_EXTRA_CA_CERTS included', async () => {
  const extra = await makeTestCa('extra-ca');
  const dir = await mkdtemp(join(tmpdir(), 'convoy-trust-'));
  try {
    await writeFile(join(dir, 'extra.pem'), extra.cert);
    const env = { NODE_EXTRA_CA_CERTS: join(dir, 'extra.pem') };
    const want = defaults([], undefined, env);
    const got = defaults(['--use-openssl-ca'], undefined, env);
    assert.ok(want.length > 100, `Node's default has its bundled roots (${want.length})`);
    assert.deepEqual(norm(got), norm(want));
    assert.ok(norm(got).includes(norm([extra.cert])[0] ?? ''), 'the extra CA is trusted');
  } finally {
    await rm(dir, { recursive: true, force: true });
    await extra.dispose();
  }
});

test('with --use-openssl-ca, an API server CA bundle is the only trust; without the flag nothing changes', async () => {
  const a = await makeTestCa('api-ca-a');
  const b = await makeTestCa('api-ca-b');
  try {
    const bundle = `${a.cert}\n${b.cert}`;
    assert.equal(pemCertificates(Buffer.from(bundle)).length, 2);
    assert.deepEqual(
      norm(defaults(['--use-openssl-ca'], bundle)),
      norm(pemCertificates(Buffer.from(bundle))),
    );
    // not PEM (a kubeconfig with junk in certificate-authority-data): Node's default, not nothing
    assert.ok(defaults(['--use-openssl-ca'], 'not a certificate').length > 100);
    assert.deepEqual(norm(defaults([], bundle)), norm(defaults([], undefined)));
  } finally {
    await a.dispose();
    await b.dispose();
  }
});
