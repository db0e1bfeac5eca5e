// The default rules against the Argo CD health corpus (no cluster). A regression in a default
// rule, the evaluator or the corpus loader fails here. Figures are in docs/health-rules.md.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { defaultRuleSet } from '../../rules/default-rules.ts';
import {
  agreement,
  type Corpus,
  conformanceDir,
  corpusAvailable,
  loadCorpus,
  type Scored,
  score,
} from './conformance.ts';
import { newEvaluator } from './evaluator.ts';

/** The built-in kinds gitops-engine covers; the default rules claim all of them. */
const builtInKinds = [
  'APIService',
  'DaemonSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'Ingress',
  'Job',
  'PersistentVolumeClaim',
  'Pod',
  'Service',
  'StatefulSet',
];

/**
 * argo-cd cases Argo calls Healthy that the generic standard-conditions rule fails, and why
 * convoy's reading is the one it wants.
 */
const expectedFalseFailures: Record<string, string> = {
  'argo-cd/apps.openshift.io/DeploymentConfig/healthy_zero_replicas':
    'Available=False is taken at its word; Argo special-cases zero replicas in Lua',
  'argo-cd/kafka.strimzi.io/KafkaBridge/healthy':
    'status.observedGeneration 14 < generation 25: the status is stale',
  'argo-cd/kafka.strimzi.io/KafkaConnector/healthy':
    'status.observedGeneration 1 < generation 25: the status is stale',
  'argo-cd/rabbitmq.com/Exchange/healthy': 'status.observedGeneration 1 < generation 3: the status is stale',
  'argo-cd/promoter.argoproj.io/ArgoCDCommitStatus/all-healthy':
    'Ready status is a YAML boolean, not the string "True"',
  'argo-cd/promoter.argoproj.io/ChangeTransferPolicy/all-healthy':
    'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/CommitStatus/success': 'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/CommitStatus/pending': 'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/CommitStatus/failure': 'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/PromotionStrategy/all-healthy': 'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/PullRequest/healthy-no-id-or-state':
    'Ready status is a YAML boolean, not "True"',
  'argo-cd/promoter.argoproj.io/PullRequest/healthy-with-id-and-state':
    'Ready status is a YAML boolean, not "True"',
};

/**
 * Floor for the argo-cd corpus, judged only by the generic rule: most misses are custom resources
 * that report health in their own fields (phase, state, …) rather than standard conditions.
 */
const argoCdAgreementFloor = 492;

let corpus: Corpus;
let scored: Scored[];

before(() => {
  assert.ok(
    corpusAvailable(),
    `conformance corpus not found at ${conformanceDir()} (expected <repo>/../shared/conformance/health, or set CONVOY_CONFORMANCE_DIR)`,
  );
  corpus = loadCorpus();
  scored = score(newEvaluator([defaultRuleSet()]), corpus.cases);
});

test('every fixture loads; the three under-indented ones through the fallback', () => {
  assert.deepEqual(corpus.skipped, []);
  assert.equal(corpus.cases.length, 1153);
  assert.deepEqual(
    corpus.cases
      .filter((c) => c.note !== undefined)
      .map((c) => c.c.id)
      .sort(),
    [
      'argo-cd/db.atlasgo.io/AtlasSchema/healthy',
      'argo-cd/work.karmada.io/ClusterResourceBinding/progressing',
      'argo-cd/work.karmada.io/ResourceBinding/progressing',
    ],
  );
  const dup = corpus.cases.find((c) => c.c.id === 'argo-cd/rabbitmq.com/User/unknown');
  assert.ok(dup);
  assert.deepEqual(dup.object.status, {}, 'a repeated key: the last one wins');
});

test('gitops-engine built-in kinds: every scored case agrees with Argo CD', () => {
  const ge = scored.filter((s) => s.c.source === 'gitops-engine');
  assert.deepEqual([...new Set(ge.map((s) => s.c.kind))].sort(), builtInKinds);
  const rows = agreement(ge, (s) => s.c.kind);
  for (const r of rows) {
    assert.equal(r.errors, 0, `${r.key}: evaluation errors`);
    const bad = ge.filter(
      (s) => s.c.kind === r.key && (s.expect === 'pass' || s.expect === 'fail') && !s.agrees,
    );
    assert.equal(
      r.agree,
      r.scored,
      `${r.key}: ${bad.map((s) => `${s.c.id} (${s.c.expected} → ${JSON.stringify(s.result)})`).join(', ')}`,
    );
  }
  assert.equal(
    rows.reduce((n, r) => n + r.scored, 0),
    44,
  );
  for (const s of ge) {
    if (s.c.source === 'gitops-engine') {
      const matched = s.result.kind === 'pass' ? s.result.rules.length : 1;
      assert.ok(s.result.kind !== 'noRule' && matched > 0, `${s.c.id}: a default rule must match`);
    }
  }
});

test('gitops-engine Suspended cases fail (a paused rollout or suspended Job does not finish)', () => {
  const suspended = scored.filter((s) => s.c.source === 'gitops-engine' && s.expect === 'suspended');
  assert.deepEqual(
    suspended.map((s) => [s.c.id, s.verdict]),
    [
      ['gitops-engine/apps/Deployment/deployment-suspended', 'fail'],
      ['gitops-engine/batch/Job/job-suspended', 'fail'],
    ],
  );
});

test('argo-cd CustomResourceDefinition cases agree through the CRD rule', () => {
  const crd = scored.filter((s) => s.c.source === 'argo-cd' && s.c.kind === 'CustomResourceDefinition');
  const [row] = agreement(crd, () => 'crd');
  assert.ok(row);
  assert.equal(row.scored, 8);
  assert.equal(
    row.agree,
    row.scored,
    crd
      .filter((s) => !s.agrees)
      .map((s) => s.c.id)
      .join(', '),
  );
});

test('argo-cd corpus through the standard-conditions rule', () => {
  const ac = scored.filter((s) => s.c.source === 'argo-cd' && s.c.group !== 'apiextensions.k8s.io');
  const [row] = agreement(ac, () => 'argo-cd');
  assert.ok(row);
  assert.equal(row.errors, 0, 'no evaluation errors on arbitrary custom resources');
  assert.ok(
    row.agree >= argoCdAgreementFloor,
    `agreement ${row.agree}/${row.scored} fell below ${argoCdAgreementFloor}`,
  );
  const falseFailures = ac.filter((s) => s.expect === 'pass' && s.verdict !== 'pass').map((s) => s.c.id);
  assert.deepEqual(
    falseFailures.sort(),
    Object.keys(expectedFalseFailures).sort(),
    'Healthy objects the rules fail',
  );
  for (const s of ac) {
    assert.ok(
      s.result.kind === 'pass'
        ? s.result.rules.includes('default/standard-conditions')
        : s.result.kind === 'fail' && s.result.rule === 'default/standard-conditions',
      `${s.c.id}: judged by the generic rule`,
    );
  }
});
