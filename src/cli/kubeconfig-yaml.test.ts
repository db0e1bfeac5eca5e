// parseSimpleYaml answers what the yaml library's parse answers, or nothing: kubeconfigs as kubectl and
// convoy write them are read by it, everything else is left to the library (checked against it on
// generated documents in both sequence styles).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { renderKubeconfig } from '../testenv/kubeconfig.ts';
import { parseSimpleYaml } from './kubeconfig-yaml.ts';

const KUBECTL_STYLE = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=
    server: https://127.0.0.1:6443
  name: kind-dev
- cluster:
    insecure-skip-tls-verify: true
    server: "https://10.0.0.1"
  name: 'other''s'
contexts:
- context:
    cluster: kind-dev
    namespace: shop
    user: kind-dev
  name: kind-dev
current-context: kind-dev
kind: Config
preferences: {}
users:
- name: kind-dev
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    token: abc.def-ghi
# trailing comment
`;

test('kubectl-style and convoy-written kubeconfigs are read, equal to the yaml library', () => {
  const convoyStyle = renderKubeconfig('dev', {
    server: 'https://127.0.0.1:40123',
    caPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    token: 'tok-123',
  });
  for (const text of [KUBECTL_STYLE, convoyStyle, `---\n${KUBECTL_STYLE}`]) {
    const fast = parseSimpleYaml(text);
    assert.notEqual(fast, undefined, text);
    assert.deepEqual(fast, parse(text));
  }
});

test('outside the subset: nothing, so the yaml library decides', () => {
  const cases = [
    'a: &x 1\nb: *x\n',
    'a: [1, 2]\n',
    'a: {b: c}\n',
    'a: |\n  text\n',
    'a: 8080\n',
    'a: 1.5\n',
    'a: .inf\n',
    'a: "esc\\"aped"\n',
    'a: !!str x\n',
    'a: b\n  continued\n',
    'a: 1\na: 2\n',
    'a:\tb\n',
    'a: b # comment\n',
    'a: b\n---\nc: d\n',
    '- a\nb: c\n',
    'a:\n    b: 1\n  c: 2\n',
    "a: 'unterminated\n",
    '? complex\n: key\n',
    '',
    '# only a comment\n',
  ];
  for (const text of cases) {
    assert.equal(parseSimpleYaml(text), undefined, JSON.stringify(text));
  }
});

const scalarText = fc.oneof(
  fc.constantFrom(
    'true',
    'False',
    'null',
    '~',
    'yes',
    'on',
    '0x1F',
    '1e3',
    '-',
    ': x',
    'a #b',
    'a#b',
    "it's",
  ),
  fc.string({
    unit: fc.constantFrom('a', 'Z', '0', '9', ' ', ':', '#', '-', "'", '"', '.', '/', 'é', '\\', '[', ','),
  }),
);
const scalar = fc.oneof(scalarText, fc.boolean(), fc.constant(null), fc.integer());
const key = fc.oneof(fc.constantFrom('name', 'server', 'current-context', 'a b', "o'k"), scalarText);
const doc = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('map'), tie('list')),
  map: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  list: fc.array(tie('value'), { maxLength: 3 }),
})).map;

test('on generated documents it agrees with the yaml library whenever it answers', () => {
  let answered = 0;
  fc.assert(
    fc.property(doc, fc.boolean(), (d, indentSeq) => {
      const text = stringify(d, { indentSeq });
      const fast = parseSimpleYaml(text);
      if (fast === undefined) return;
      answered++;
      assert.deepEqual(fast, parse(text), text);
    }),
    { numRuns: 3000 },
  );
  assert.ok(answered > 500, `answered only ${answered} of 3000`);
});
