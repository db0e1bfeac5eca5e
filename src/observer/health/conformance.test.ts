// convoy's default rules and rule library against the Argo CD health corpus (no cluster), scored
// exactly as `convoy rules eval --expect` scores it. A regression in a rule, the evaluator or the
// corpus loader fails here. Figures are in docs/health-rules.md.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { rulesScore, summarize } from '../../cli/rules-eval.ts';
import { defaultRuleSet } from '../../rules/default-rules.ts';
import { libraryRuleSets } from '../../rules/library.ts';
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

/** Floors: the figures reached (docs/health-rules.md); lower means a rule regressed. */
const floors = { agree: 1032, failuresCaught: 677 };

/**
 * Cases Argo calls Healthy that convoy fails, and why convoy's reading is the one it wants.
 */
const expectedFalseFailures: Record<string, string> = {
  'argo-cd/apps.openshift.io/DeploymentConfig/healthy_zero_replicas':
    'Available=False is taken at its word; Argo special-cases zero replicas in Lua',
};

let corpus: Corpus;
let scored: Scored[];

before(() => {
  assert.ok(
    corpusAvailable(),
    `conformance corpus not found at ${conformanceDir()} (expected <repo>/../shared/conformance/health, or set CONVOY_CONFORMANCE_DIR)`,
  );
  corpus = loadCorpus();
  scored = score(newEvaluator([defaultRuleSet(), ...libraryRuleSets()]), corpus.cases);
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

test('whole corpus: agreement, failures caught, no evaluation error', () => {
  const s = summarize(scored);
  assert.equal(s.scored, 1061);
  assert.equal(s.errors, 0, 'no evaluation errors');
  assert.ok(s.agree >= floors.agree, `agreement ${s.agree}/${s.scored} fell below ${floors.agree}`);
  const cr = summarize(scored.filter((x) => x.c.source === 'argo-cd'));
  assert.ok(
    cr.failuresCaught >= floors.failuresCaught,
    `custom-resource failures caught ${cr.failuresCaught}/${cr.failures} fell below ${floors.failuresCaught}`,
  );
  const falseFailures = scored.filter((x) => x.expect === 'pass' && x.verdict !== 'pass').map((x) => x.c.id);
  assert.deepEqual(falseFailures.sort(), Object.keys(expectedFalseFailures).sort(), 'Healthy objects failed');
});

test('every group of the corpus is scored and judged by a rule written for it, or the generic one', () => {
  const rows = agreement(scored, (x) => x.c.group);
  assert.ok(rows.length >= 100, `${rows.length} groups`);
  const library = new Set(libraryRuleSets().map((rs) => rs.metadata.name));
  for (const x of scored) {
    if (!library.has(x.c.group) || x.result.kind === 'noRule') continue;
    const rules = x.result.kind === 'pass' ? x.result.rules : [x.result.rule];
    assert.ok(
      rules.every((r) => r.startsWith(`${x.c.group}/`)),
      `${x.c.id}: judged by ${rules.join(', ')}, not by the ${x.c.group} rule set`,
    );
  }
});

test('gitops-engine built-in kinds: every scored case agrees with Argo CD', () => {
  const ge = scored.filter((s) => s.c.source === 'gitops-engine');
  assert.deepEqual([...new Set(ge.map((s) => s.c.kind))].sort(), builtInKinds);
  for (const s of ge) {
    if (s.expect !== 'pass' && s.expect !== 'fail') continue;
    assert.ok(s.agrees, `${s.c.id}: ${s.c.expected} → ${JSON.stringify(s.result)}`);
    assert.ok(s.result.kind !== 'noRule', `${s.c.id}: a default rule must match`);
  }
  assert.equal(ge.filter((s) => s.expect === 'pass' || s.expect === 'fail').length, 44);
});

test('Suspended: a paused rollout fails, a deliberately suspended schedule passes', () => {
  const verdict = (id: string) => scored.find((s) => s.c.id === id)?.verdict;
  assert.equal(verdict('gitops-engine/apps/Deployment/deployment-suspended'), 'fail');
  assert.equal(verdict('gitops-engine/batch/Job/job-suspended'), 'fail');
  assert.equal(verdict('argo-cd/argoproj.io/Rollout/suspended_userPause'), 'fail');
  assert.equal(verdict('argo-cd/astra.netapp.io/ExecHook/suspended'), 'pass');
});

test('rulesScore prints the per-group table the bench shows', () => {
  const out = rulesScore([{ kind: 'default' }, { kind: 'library' }], corpus);
  assert.equal(out.exitCode, 1, 'some cases still disagree');
  assert.match(out.lines.join('\n'), /^\| argoproj\.io \| \d+ \| \d+ \| /m);
  assert.match(out.lines.join('\n'), /^agreement: \d+ of 1061 scored fixtures/m);
});
