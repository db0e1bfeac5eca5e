import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rulesEval } from './rules-eval.ts';

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

test('a compile error gives 2 and names the rule set, rule and position', () => {
  const out = rulesEval(
    [{ kind: 'file', name: 'r.yaml', text: ruleSet('object.status.ready &&') }],
    [{ name: 'a.yaml', text: widget('a', true) }],
  );
  assert.equal(out.exitCode, 2);
  assert.match(out.lines.join('\n'), /^error: rule set web\/team, rule ready, healthy, line 1, column \d+: /);
});

test('bad input gives 2', () => {
  const notARuleSet = rulesEval([{ kind: 'file', name: 'r.yaml', text: widget('a', true) }], []);
  assert.equal(notARuleSet.exitCode, 2);
  assert.match(
    notARuleSet.lines[0] ?? '',
    /r\.yaml, document 1: want apiVersion convoy\.kumodo\.io\/v1alpha1/,
  );
  const badYaml = rulesEval([{ kind: 'default' }], [{ name: 'o.yaml', text: 'a: [1,\n' }]);
  assert.equal(badYaml.exitCode, 2);
  assert.match(badYaml.lines[0] ?? '', /^error: o\.yaml: invalid YAML/);
  const noKind = rulesEval([{ kind: 'default' }], [{ name: 'o.yaml', text: 'metadata: {name: x}\n' }]);
  assert.equal(noKind.exitCode, 2);
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
