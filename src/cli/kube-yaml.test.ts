// kubeYaml against the YAML 1.1 scalars kubectl would turn into booleans, numbers, null or a merge:
// each must come out quoted and read back as the same string, by a YAML 1.1 and a 1.2 reader alike;
// real booleans, numbers and null stay plain. kube-yaml-kubectl in test/e2e/render-kubectl.test.ts
// sends the same through kubectl to a real API server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { kubeYaml } from './kube-yaml.ts';

/** Strings that are not strings to a YAML 1.1 reader (go-yaml v2's bools, ints, floats, null, merge). */
const AMBIGUOUS: readonly string[] = [
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO'],
  ...['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF'],
  ...['~', 'null', 'Null', 'NULL', ''],
  ...['0755', '0777', '08', '12', '+1', '-3', '1_000', '0x1F', '0X1F', '0o17', '0O17', '0b101', '-0b1'],
  ...['1e3', '1E3', '1e+3', '1.5', '-.5', '.5', '0.', '.inf', '-.Inf', '+.INF', '.nan', '.NaN'],
  ...['1:20', '190:20:30', '2001-12-14', '2001-12-14t21:59:43.10-05:00', '<<'],
];

test('every YAML 1.1 ambiguous string is quoted, as a value and as a key, and reads back the same', () => {
  const value = Object.fromEntries(AMBIGUOUS.map((s, i) => [`k${i}`, s]));
  const keys = Object.fromEntries(AMBIGUOUS.map((s, i) => [s, i]));
  const text = kubeYaml({ data: value, keys });
  for (const version of ['1.1', '1.2'] as const) {
    const back = parse(text, { version }) as { data: Record<string, unknown>; keys: Record<string, unknown> };
    assert.deepEqual(back.data, value, `YAML ${version} reads the values back`);
    assert.deepEqual(back.keys, keys, `YAML ${version} reads the keys back`);
  }
  for (const [i, s] of AMBIGUOUS.entries()) {
    const line = text.split('\n').find((l) => l.startsWith(`  k${i}: `));
    assert.match(line ?? '', /^ {2}k\d+: (["']).*\1$/, `${JSON.stringify(s)} is quoted: ${line}`);
  }
});

test('plain strings stay plain; booleans, numbers and null stay what they are', () => {
  const cases: readonly [unknown, string][] = [
    [{ a: 'nginx' }, 'a: nginx\n'],
    [{ a: 'nO' }, 'a: nO\n'],
    [{ a: 'yesterday' }, 'a: yesterday\n'],
    [{ a: '--appendonly' }, 'a: --appendonly\n'],
    [{ a: true }, 'a: true\n'],
    [{ a: false }, 'a: false\n'],
    [{ a: 3 }, 'a: 3\n'],
    [{ a: 1.5 }, 'a: 1.5\n'],
    [{ a: null }, 'a: null\n'],
    [{ args: ['--appendonly', 'no'] }, 'args:\n  - --appendonly\n  - "no"\n'],
    [
      { env: [{ name: 'ALLOW_EMPTY_PASSWORD', value: 'yes' }] },
      'env:\n  - name: ALLOW_EMPTY_PASSWORD\n    value: "yes"\n',
    ],
  ];
  for (const [value, want] of cases) assert.equal(kubeYaml(value), want, JSON.stringify(value));
});

test('an object used twice is written twice, not as an anchor and alias', () => {
  const labels = { app: 'web' };
  assert.equal(kubeYaml({ a: labels, b: labels }), 'a:\n  app: web\nb:\n  app: web\n');
});
