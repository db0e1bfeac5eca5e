import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadLabelledDir } from '../observer/health/conformance.ts';
import { rulesEval, rulesScore } from './rules-eval.ts';

const ruleSet = (healthy: string, message = "'not ready'") => `
apiVersion: convoy.kumodo.io/v1alpha1
kind: HealthRuleSet
metadata: {name: team, namespace: web}
spec:
  rules:
  - name: ready
    match: {group: example.com, kinds: [Widget]}
    healthy: ${JSON.stringify(healthy)}
    message: ${JSON.stringify(message)}
`;
const widget = (name: string, ready: boolean) => `
apiVersion: example.com/v1
kind: Widget
metadata: {name: ${name}, namespace: web}
status: {ready: ${ready}}
`;

test('judges every object of every document and List, and prints a table', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'rules.yaml', text: ruleSet('object.status.ready') }],
    [
      { name: 'a.yaml', text: `${widget('a', true)}---\n${widget('b', false)}` },
      {
        name: 'list.yaml',
        text: `apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n`,
      },
    ],
  );
  assert.equal(out.exitCode, 1, 'a failure gives 1');
  assert.deepEqual(out.lines, [
    'OBJECT        RESULT   RULE            MESSAGE',
    'Widget/web/a  pass     web/team/ready',
    'Widget/web/b  fail     web/team/ready  not ready',
    'ConfigMap/c   no rule  -               no rule matches: healthy once it exists',
  ]);
});

test('all pass gives 0', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('true') }],
    [{ name: 'a.yaml', text: widget('a', false) }],
  );
  assert.equal(out.exitCode, 0);
});

test('an evaluation error gives 1 and names rule and column', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('object.status.missing') }],
    [{ name: 'a.yaml', text: widget('a', true) }],
  );
  assert.equal(out.exitCode, 1);
  assert.match(
    out.lines[1] ?? '',
    /error\s+web\/team\/ready\s+rule web\/team\/ready, healthy, line 1, column 14: .*missing/,
  );
});

test('a compile error gives 2 and names the rule set, rule and position, in the file too', () => {
  // A type error is one too: found before any object is judged, not as an error per object.
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['object.status.ready &&', '.*'],
    ["'a' * 1 == 'aa'", "found no matching overload for '_\\*_' applied to '\\(string, int\\)'"],
  ];
  for (const [healthy, why] of cases) {
    const out = rulesEval(
      [{ kind: 'file', name: 'r.yaml', text: ruleSet(healthy) }],
      [{ name: 'a.yaml', text: widget('a', true) }],
    );
    assert.equal(out.exitCode, 2, healthy);
    assert.deepEqual(out.lines, [], healthy);
    const where = '^error: rule set web/team, rule ready, healthy, line 1, column \\d+: ';
    assert.match(
      out.errors.join('\n'),
      new RegExp(`${where}${why} \\(r\\.yaml, rule at line 7, column 5\\)$`),
      healthy,
    );
  }
});

test('structural errors in a rule file name line and column; every bad file is reported', () => {
  const out = rulesEval(
    [
      { kind: 'file', name: 'r.yaml', text: widget('a', true) },
      {
        kind: 'file',
        name: 's.yaml',
        text: 'apiVersion: convoy.kumodo.io/v1alpha1\nkind: HealthRuleSet\nmetadata: {name: x}\nspec:\n  rules: {}\n',
      },
    ],
    [],
  );
  assert.equal(out.exitCode, 2);
  assert.deepEqual(out.errors, [
    'error: r.yaml, document 1 (line 2, column 13): want apiVersion convoy.kumodo.io/v1alpha1, kind HealthRuleSet or GlobalHealthRuleSet; got example.com/v1 Widget',
    'error: s.yaml, document 1 (line 5, column 10): spec.rules must be a list',
  ]);
});

test('an object file that does not parse is reported with its position; the others are still judged', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('object.status.ready') }],
    [
      { name: 'bad.yaml', text: 'a: [1,\n' },
      { name: 'a.yaml', text: widget('a', true) },
      { name: 'nokind.yaml', text: 'metadata: {name: x}\n' },
    ],
  );
  assert.equal(out.exitCode, 2, 'invalid input gives 2 even when the rest passes');
  assert.deepEqual(out.lines, [
    'OBJECT        RESULT  RULE            MESSAGE',
    'Widget/web/a  pass    web/team/ready',
  ]);
  assert.equal(out.errors.length, 2);
  assert.match(out.errors[0] ?? '', /^error: bad\.yaml: invalid YAML \(line \d+, column \d+\): /);
  assert.equal(out.errors[1], 'error: nokind.yaml: object 1 has no apiVersion and kind');
});

test('-o json: one document with every result and every invalid input', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('object.status.ready') }],
    [
      { name: 'a.yaml', text: `${widget('a', true)}---\n${widget('b', false)}` },
      { name: 'bad.yaml', text: 'a: [1,\n' },
    ],
    { output: 'json' },
  );
  assert.equal(out.exitCode, 2);
  const doc = JSON.parse(out.lines.join('\n')) as { results: unknown[]; invalid: string[] };
  assert.deepEqual(doc.results, [
    { file: 'a.yaml', object: 'Widget/web/a', result: 'pass', rule: 'web/team/ready', message: '' },
    { file: 'a.yaml', object: 'Widget/web/b', result: 'fail', rule: 'web/team/ready', message: 'not ready' },
  ]);
  assert.equal(doc.invalid.length, 1);
});

test('--expect scores a directory labelled by file names, as the corpus is scored', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-expect-'));
  writeFileSync(join(dir, 'healthy.yaml'), widget('a', true));
  writeFileSync(join(dir, 'degraded-not-ready.yaml'), widget('b', false));
  writeFileSync(join(dir, 'progressing_wrongly_passed.yml'), widget('c', true));
  writeFileSync(join(dir, 'suspended.yaml'), widget('d', false));
  const rules = [{ kind: 'file' as const, name: 'r.yaml', text: ruleSet('object.status.ready') }];
  const out = rulesScore(rules, loadLabelledDir(dir));
  assert.equal(out.exitCode, 1, 'a disagreement gives 1');
  const text = out.lines.join('\n');
  assert.match(text, /^\| example\.com \| 2 \| 3 \| 66\.7 \| 0\/1 \| 0 \|$/m);
  assert.match(text, /^agreement: 2 of 3 scored fixtures \(66\.7 %\)$/m);
  assert.match(text, /^failures caught: 1 of 2 \(50\.0 %\)$/m);
  assert.match(
    text,
    /^ {2}progressing_wrongly_passed: expected Progressing, got pass \(web\/team\/ready\)$/m,
  );
  const json = JSON.parse(rulesScore(rules, loadLabelledDir(dir), { output: 'json' }).lines.join(''));
  assert.equal(json.summary.agree, 2);

  writeFileSync(join(dir, 'notes.yaml'), widget('e', true));
  const unlabelled = rulesScore(rules, loadLabelledDir(dir));
  assert.equal(unlabelled.exitCode, 2, 'an unlabelled fixture is invalid input');
  assert.match(unlabelled.errors.join('\n'), /notes\.yaml: no label/);
});

test('--expect reads DIR/cases.json when there is one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-expect-'));
  writeFileSync(join(dir, 'w.yaml'), widget('a', true));
  writeFileSync(join(dir, 'cases.json'), JSON.stringify([{ id: 'w', file: 'w.yaml', expected: 'Healthy' }]));
  const out = rulesScore(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('object.status.ready') }],
    loadLabelledDir(dir),
  );
  assert.equal(out.exitCode, 0, out.lines.join('\n'));
});

test('bad input gives 2', () => {
  const notARuleSet = rulesEval([{ kind: 'file', name: 'r.yaml', text: widget('a', true) }], []);
  assert.equal(notARuleSet.exitCode, 2);
  assert.match(
    notARuleSet.errors[0] ?? '',
    /r\.yaml, document 1 .*want apiVersion convoy\.kumodo\.io\/v1alpha1/,
  );
  const badYaml = rulesEval([{ kind: 'default' }], [{ name: 'o.yaml', text: 'a: [1,\n' }]);
  assert.equal(badYaml.exitCode, 2);
  assert.match(badYaml.errors[0] ?? '', /^error: o\.yaml: invalid YAML/);
});

test('--rules default uses the shipped rule set', () => {
  const deploy = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop, generation: 2}
spec: {replicas: 3}
status: {observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 1}
`;
  const out = rulesEval([{ kind: 'default' }], [{ name: 'd.yaml', text: deploy }]);
  assert.equal(out.exitCode, 1);
  assert.match(
    out.lines[1] ?? '',
    /^Deployment\/shop\/api\s+fail\s+default\/deployment\s+1 of 3 updated replicas available$/,
  );
});

test('--rules library judges custom resources with the rule written for their group', () => {
  const cert = `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls, namespace: shop, generation: 1}
status:
  conditions:
  - {type: Ready, status: "False", reason: DoesNotExist, message: Issuer letsencrypt not found}
`;
  const out = rulesEval([{ kind: 'default' }, { kind: 'library' }], [{ name: 'c.yaml', text: cert }]);
  assert.equal(out.exitCode, 1);
  assert.match(
    out.lines[1] ?? '',
    /^Certificate\/shop\/web-tls\s+fail\s+cert-manager\.io\/ready\s+Ready is False \(DoesNotExist\): Issuer letsencrypt not found$/,
  );
  const cm = rulesEval(
    [{ kind: 'default' }],
    [{ name: 'c.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' }],
  );
  assert.match(
    cm.lines[1] ?? '',
    /pass\s+default\/standard-conditions\s+no rule for this kind; passes the generic status checks$/,
  );
});
