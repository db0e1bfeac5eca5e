import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecret, MASK, maskSecret, maskSecretPair } from './secret-mask.ts';

const secret = (data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'n' },
  type: 'Opaque',
  data,
  ...extra,
});

test('maskSecret: values of data and stringData masked, keys and everything else kept', () => {
  const s = secret(
    { password: 'aHVudGVyMg==', user: 'YWRtaW4=' },
    {
      stringData: { token: 'hunter2' },
      metadata: {
        name: 's',
        namespace: 'n',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}',
          a: 'b',
        },
      },
    },
  );
  const m = maskSecret(s);
  assert.deepEqual(m, {
    ...s,
    data: { password: MASK, user: MASK },
    stringData: { token: MASK },
    metadata: {
      name: 's',
      namespace: 'n',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': MASK, a: 'b' },
    },
  });
  assert.equal(s.data.password, 'aHVudGVyMg==', 'the input is not changed');
  assert.ok(!JSON.stringify(m).includes('aHVudGVyMg'), 'no trace of the value');
});

test('maskSecret: other kinds and other groups are left alone', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', data: { password: 'x' } };
  assert.equal(maskSecret(cm), cm);
  const other = { apiVersion: 'example.com/v1', kind: 'Secret', data: { password: 'x' } };
  assert.equal(maskSecret(other), other);
  assert.equal(maskSecret(undefined), undefined);
  assert.equal(isSecret(secret({})), true);
  assert.equal(isSecret(null), false);
});

test('maskSecretPair: a changed value reads *** (before) / *** (after), an equal one ***', () => {
  const cases: [
    string,
    Record<string, string> | undefined,
    Record<string, string> | undefined,
    unknown,
    unknown,
  ][] = [
    [
      'one changed, one equal, one added, one removed',
      { password: 'b2xk', user: 'YWRtaW4=', gone: 'eA==' },
      { password: 'bmV3', user: 'YWRtaW4=', added: 'eQ==' },
      { password: '*** (before)', user: '***', gone: '*** (before)' },
      { password: '*** (after)', user: '***', added: '*** (after)' },
    ],
    ['created', undefined, { password: 'bmV3' }, undefined, { password: '*** (after)' }],
    ['deleted', { password: 'b2xk' }, undefined, { password: '*** (before)' }, undefined],
    ['unchanged', { password: 'b2xk' }, { password: 'b2xk' }, { password: '***' }, { password: '***' }],
  ];
  for (const [what, b, a, wantB, wantA] of cases) {
    const r = maskSecretPair(b && secret(b), a && secret(a));
    assert.deepEqual((r.before as { data?: unknown } | undefined)?.data, wantB, what);
    assert.deepEqual((r.after as { data?: unknown } | undefined)?.data, wantA, what);
  }
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } };
  const r = maskSecretPair(cm, cm);
  assert.equal(r.before, cm);
  assert.equal(r.after, cm);
});
