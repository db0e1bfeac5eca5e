// The rule library: every file is one labelled GlobalHealthRuleSet for its API group, fits the
// CRD's limits, and its rules never error on the shapes a controller writes before it has
// reported anything (no status, a stale generation). Edge cases of single rules follow; the Argo
// CD corpus is scored in src/observer/health/conformance.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { HealthRuleSchema } from '../api/schema/healthruleset.ts';
import { newEvaluator } from '../observer/health/evaluator.ts';
import type { KubeObject, RuleResult } from '../observer/health/types.ts';
import { defaultRuleSet } from './default-rules.ts';
import { LIBRARY_GROUP_LABEL, LIBRARY_LABEL, libraryFiles, libraryRuleSets } from './library.ts';

const sets = libraryRuleSets();
const ev = newEvaluator([defaultRuleSet(), ...sets]);
const maxExpr = (HealthRuleSchema.properties.healthy as unknown as { maxLength: number }).maxLength;

test('one labelled GlobalHealthRuleSet per file, named after its API group, rules only for that group', () => {
  const files = libraryFiles();
  assert.ok(files.length >= 30, `${files.length} files`);
  for (const { file, text } of files) {
    const group = file.replace(/\.yaml$/, '');
    const [rs, ...more] = libraryRuleSets().filter((r) => r.metadata.name === group);
    assert.ok(rs && more.length === 0, `${file}: one rule set named ${group}`);
    assert.equal(rs.kind, 'GlobalHealthRuleSet', file);
    const labels = (parse(text) as { metadata: { labels?: Record<string, string> } }).metadata.labels;
    assert.deepEqual(labels, { [LIBRARY_LABEL]: 'library', [LIBRARY_GROUP_LABEL]: group }, file);
    assert.match(text, /^# /, `${file}: starts with a comment saying what the project documents`);
    for (const r of rs.spec.rules) {
      assert.equal(r.match.group, group, `${file}/${r.name}: matches its own group`);
      assert.ok(
        r.healthy.length <= maxExpr,
        `${file}/${r.name}: healthy is ${r.healthy.length} > ${maxExpr} chars`,
      );
      assert.ok((r.message ?? '').length <= maxExpr, `${file}/${r.name}: message too long`);
      assert.ok(
        r.message !== undefined || r.healthy === 'true',
        `${file}/${r.name}: a message says why it fails`,
      );
    }
  }
});

test('no library rule errors on an object without status or with a stale generation', () => {
  for (const rs of sets) {
    for (const r of rs.spec.rules) {
      for (const kind of r.match.kinds
        .filter((k) => k !== '*')
        .concat(r.match.kinds.includes('*') ? ['Anything'] : [])) {
        const base = { apiVersion: `${r.match.group}/v1`, kind, metadata: { name: 'x', generation: 3 } };
        for (const o of [
          base,
          { ...base, spec: {} },
          { ...base, status: {} },
          { ...base, status: { observedGeneration: 2, conditions: [] } },
          { ...base, status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }] } },
        ] as KubeObject[]) {
          const res = ev.evaluate(o);
          assert.notEqual(
            res.kind,
            'error',
            `${rs.metadata.name}/${r.name} on ${JSON.stringify(o)}: ${JSON.stringify(res)}`,
          );
        }
      }
    }
  }
});

const obj = (apiVersion: string, kind: string, rest: object, generation = 2): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', generation },
  ...rest,
});
const cond = (type: string, status: string, extra: object = {}) => ({ type, status, ...extra });

test('library rules: edge cases', () => {
  const cases: [string, KubeObject, RuleResult['kind'], string, RegExp?][] = [
    [
      'Certificate without status',
      obj('cert-manager.io/v1', 'Certificate', {}),
      'fail',
      'cert-manager.io/ready',
      /^no status yet$/,
    ],
    [
      'Certificate not Ready',
      obj('cert-manager.io/v1', 'Certificate', {
        status: { conditions: [cond('Ready', 'False', { reason: 'Pending', message: 'Issuing' })] },
      }),
      'fail',
      'cert-manager.io/ready',
      /^Ready is False \(Pending\): Issuing$/,
    ],
    [
      'Certificate Ready',
      obj('cert-manager.io/v1', 'Certificate', { status: { conditions: [cond('Ready', 'True')] } }),
      'pass',
      'cert-manager.io/ready',
    ],
    [
      'Certificate Ready for the current generation',
      obj('cert-manager.io/v1', 'Certificate', {
        status: { conditions: [cond('Ready', 'True', { observedGeneration: 2 })] },
      }),
      'pass',
      'cert-manager.io/ready',
    ],
    [
      'Certificate Ready left from an older generation (spec changed since)',
      obj('cert-manager.io/v1', 'Certificate', {
        status: { conditions: [cond('Ready', 'True', { observedGeneration: 1 })] },
      }),
      'fail',
      'cert-manager.io/ready',
      /^Ready is stale: observed generation 1, the object is at 2$/,
    ],
    [
      'Rollout paused at a canary step',
      obj('argoproj.io/v1alpha1', 'Rollout', {
        spec: { replicas: 5, strategy: { canary: { steps: [{}, {}, {}, {}, {}, {}, {}, {}] } } },
        status: {
          observedGeneration: '2',
          currentPodHash: 'a',
          updatedReplicas: 2,
          availableReplicas: 5,
          currentStepIndex: 3,
          pauseConditions: [{ reason: 'CanaryPauseStep' }],
        },
      }),
      'fail',
      'argoproj.io/rollout-progress',
      /^2 of 5 replicas updated, 5 available, step 3\/8 paused \(CanaryPauseStep\)$/,
    ],
    [
      'Rollout status for an older generation',
      obj('argoproj.io/v1alpha1', 'Rollout', { spec: {}, status: { observedGeneration: 1 } }),
      'fail',
      'argoproj.io/rollout-progress',
      /observe generation 2/,
    ],
    [
      'Rollout aborted',
      obj('argoproj.io/v1alpha1', 'Rollout', {
        spec: {},
        status: {
          conditions: [cond('Progressing', 'False', { reason: 'RolloutAborted', message: 'aborted' })],
        },
      }),
      'fail',
      'argoproj.io/rollout-progress',
      /Progressing RolloutAborted: aborted/,
    ],
    [
      'HTTPRoute with a parent that does not accept it',
      obj('gateway.networking.k8s.io/v1', 'HTTPRoute', {
        status: {
          parents: [
            {
              parentRef: { name: 'gw' },
              conditions: [cond('Accepted', 'False', { message: 'no listener', observedGeneration: 2 })],
            },
          ],
        },
      }),
      'fail',
      'gateway.networking.k8s.io/route',
      /^parent gw: Accepted is False: no listener$/,
    ],
    [
      'HTTPRoute whose parents only reported an older generation',
      obj('gateway.networking.k8s.io/v1', 'HTTPRoute', {
        status: {
          parents: [
            { parentRef: { name: 'gw' }, conditions: [cond('Accepted', 'True', { observedGeneration: 1 })] },
          ],
        },
      }),
      'fail',
      'gateway.networking.k8s.io/route',
      /generation 2/,
    ],
    [
      'Gloo VirtualService rejected (state as a number)',
      obj('gateway.solo.io/v1', 'VirtualService', {
        status: { statuses: { 'gloo-system': { state: 2, reason: 'bad domain' } } },
      }),
      'fail',
      'gateway.solo.io/accepted',
      /gloo-system: 2: bad domain/,
    ],
    [
      'Humio cluster in ConfigError',
      obj('core.humio.com/v1alpha1', 'HumioCluster', {
        status: { state: 'ConfigError', message: 'no license' },
      }),
      'fail',
      'core.humio.com/cluster-state',
      /^state is ConfigError: no license$/,
    ],
    [
      'ExecHook disabled on purpose passes',
      obj('astra.netapp.io/v1', 'ExecHook', { spec: { enabled: false } }),
      'pass',
      'astra.netapp.io/exechook-enabled',
    ],
  ];
  for (const [what, o, kind, rule, message] of cases) {
    const r = ev.evaluate(o);
    assert.equal(r.kind, kind, `${what}: ${JSON.stringify(r)}`);
    if (r.kind === 'pass') assert.ok(r.rules.includes(rule), `${what}: ${r.rules}`);
    if (r.kind === 'fail') {
      assert.equal(r.rule, rule, what);
      if (message) assert.match(r.message, message, what);
    }
  }
});
