// Targeted checks of the default rules beyond the Argo CD corpus: the generic rule must not fail
// built-in kinds, messages must say what is missing, integers behave as ints.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEvaluator } from '../observer/health/evaluator.ts';
import type { KubeObject, RuleResult } from '../observer/health/types.ts';
import { defaultRuleSet } from './default-rules.ts';

const ev = newEvaluator([defaultRuleSet()]);
const cond = (type: string, status: string, extra: object = {}) => ({ type, status, ...extra });

test('the default rule set is labelled and compiles', () => {
  const rs = defaultRuleSet();
  assert.equal(rs.kind, 'GlobalHealthRuleSet');
  assert.equal(rs.metadata.name, 'default');
  assert.equal(ev.rules.at(-1)?.id, 'default/standard-conditions');
  assert.equal(ev.rules.at(-1)?.rule.fallback, true, 'the generic rule judges only kinds without a rule');
});

test('default rules: verdicts and messages', () => {
  const deploy = (status: object, spec: object = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', generation: 4 },
    spec: { replicas: 3, ...spec },
    status: { observedGeneration: 4, ...status },
  });
  const pod = (phase: string, restartPolicy: string, conditions: object[]): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { restartPolicy },
    status: { phase, conditions },
  });
  const cr = (status?: object, generation = 2): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', generation },
    ...(status ? { status } : {}),
  });
  const cases: [string, KubeObject, RuleResult['kind'], RegExp | string[]][] = [
    [
      'complete deployment passes its rule and the generic one',
      deploy({
        replicas: 3,
        updatedReplicas: 3,
        availableReplicas: 3,
        conditions: [cond('Available', 'True')],
      }),
      'pass',
      ['default/deployment'],
    ],
    ['replicas updated', deploy({ replicas: 3, updatedReplicas: 1 }), 'fail', /^1 of 3 replicas updated$/],
    [
      'replicas available',
      deploy({ replicas: 3, updatedReplicas: 3, availableReplicas: 2 }),
      'fail',
      /^2 of 3 updated replicas available$/,
    ],
    ['zero fields are omitted in JSON', deploy({}), 'fail', /^0 of 3 replicas updated$/],
    [
      'stale generation',
      deploy({ observedGeneration: 3, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }),
      'fail',
      /observe generation 4/,
    ],
    [
      'no status yet',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'x', generation: 1 },
        spec: { replicas: 1 },
      },
      'fail',
      /waiting for the deployment controller/,
    ],
    ['scaled to zero', deploy({}, { replicas: 0 }), 'pass', ['default/deployment']],
    [
      'paused, rollout complete',
      deploy({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 }, { paused: true }),
      'pass',
      ['default/deployment'],
    ],
    [
      'completed pod: Ready=False (the pod rule alone judges pods)',
      pod('Succeeded', 'Never', [cond('Ready', 'False', { reason: 'PodCompleted' })]),
      'pass',
      ['default/pod'],
    ],
    ['ready pod', pod('Running', 'Always', [cond('Ready', 'True')]), 'pass', ['default/pod']],
    [
      'running pod of a Job-like policy',
      pod('Running', 'Never', [cond('Ready', 'True')]),
      'fail',
      /restartPolicy Never is healthy once it has succeeded/,
    ],
    ['custom resource without status', cr(), 'pass', ['default/standard-conditions']],
    [
      'custom resource Ready',
      cr({ observedGeneration: 2, conditions: [cond('Ready', 'True')] }),
      'pass',
      ['default/standard-conditions'],
    ],
    [
      'custom resource not Ready',
      cr({ conditions: [cond('Ready', 'False', { reason: 'Pulling', message: 'fetching chart' })] }),
      'fail',
      /^Ready is False: Pulling: fetching chart \(generic rule: /,
    ],
    [
      'custom resource stale status',
      cr({ observedGeneration: 1, conditions: [cond('Ready', 'True')] }),
      'fail',
      /status is for generation 1, the object is at generation 2/,
    ],
    [
      'condition for an older generation',
      cr({ conditions: [cond('Ready', 'True', { observedGeneration: 1 })] }),
      'fail',
      /Ready is True \(for generation 1\)/,
    ],
    [
      'kstatus Stalled',
      cr({ conditions: [cond('Stalled', 'True', { message: 'bad spec' })] }),
      'fail',
      /Stalled is True: bad spec/,
    ],
    [
      'other conditions do not matter',
      cr({ conditions: [cond('Synced', 'False')] }),
      'pass',
      ['default/standard-conditions'],
    ],
    [
      'non-standard status shapes do not error',
      cr({ conditions: { Ready: true }, observedGeneration: 'abc' }),
      'pass',
      ['default/standard-conditions'],
    ],
    [
      'ClusterIP service',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'ClusterIP' } },
      'pass',
      ['default/service-loadbalancer'],
    ],
    [
      'job running',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { completions: 2 },
        status: { active: 1, succeeded: 1 },
      },
      'fail',
      /^job running: 1 active, 1 succeeded of 2$/,
    ],
    [
      'no rule but the generic one for a ConfigMap',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      'pass',
      ['default/standard-conditions'],
    ],
  ];
  for (const [what, o, kind, want] of cases) {
    const r = ev.evaluate(o);
    assert.equal(r.kind, kind, `${what}: ${JSON.stringify(r)}`);
    if (r.kind === 'pass') assert.deepEqual(r.rules, want, what);
    if (r.kind === 'fail') assert.match(r.message, want as RegExp, what);
  }
});
