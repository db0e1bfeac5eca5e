// npm run bench:health-rules — the default health rules against the Argo CD corpus (agreement per
// kind and overall) and evaluation throughput over 10,000 objects.
import { agreement, formatAgreementTable, loadCorpus, score } from '../src/observer/health/conformance.ts';
import { newEvaluator } from '../src/observer/health/evaluator.ts';
import { defaultRuleSet } from '../src/rules/default-rules.ts';

const ev = newEvaluator([defaultRuleSet()]);
const corpus = loadCorpus();
for (const s of corpus.skipped) console.log(`skipped ${s.id}: ${s.reason}`);
for (const c of corpus.cases) if (c.note) console.log(`note ${c.c.id}: ${c.note}`);

const scored = score(ev, corpus.cases);
console.log('\n## gitops-engine (built-in kinds, judged by their own default rule)\n');
console.log(
  formatAgreementTable(
    agreement(
      scored.filter((s) => s.c.source === 'gitops-engine'),
      (s) => s.c.kind,
    ),
    'kind',
  ),
);
console.log('\n## argo-cd resource_customizations\n');
console.log(
  formatAgreementTable(
    agreement(
      scored.filter((s) => s.c.source === 'argo-cd'),
      (s) =>
        s.c.group === 'apiextensions.k8s.io'
          ? 'CustomResourceDefinition (crd rule)'
          : 'custom resources (standard-conditions)',
    ),
    'judged by',
  ),
);

const ac = scored.filter((s) => s.c.source === 'argo-cd');
const missed = ac.filter((s) => s.expect === 'fail' && s.verdict === 'pass');
const objectOf = new Map(corpus.cases.map((l) => [l.c.id, l.object]));
const noConditions = missed.filter((s) => {
  const status = objectOf.get(s.c.id)?.status as { conditions?: unknown } | undefined;
  return !Array.isArray(status?.conditions);
});
console.log(
  `\nargo-cd disagreements: ${ac.filter((s) => s.expect === 'pass' && s.verdict !== 'pass').length} Healthy judged fail; ` +
    `${missed.length} Progressing/Degraded judged pass (${noConditions.length} of them have no status.conditions at all)`,
);

// Throughput: the corpus objects, cycled to 10,000, as the observer would see them.
const n = 10_000;
const objects = Array.from({ length: n }, (_, i) => corpus.cases[i % corpus.cases.length]?.object).filter(
  (o) => o !== undefined,
);
const builtIn = corpus.cases.filter((c) => c.c.source === 'gitops-engine').map((c) => c.object);
const builtIns = Array.from({ length: n }, (_, i) => builtIn[i % builtIn.length]).filter(
  (o) => o !== undefined,
);
const run = (label: string, objs: typeof objects) => {
  for (const o of objs.slice(0, 500)) ev.evaluate(o); // warm up
  const t0 = performance.now();
  for (const o of objs) ev.evaluate(o);
  const ms = performance.now() - t0;
  console.log(
    `${label}: ${objs.length} objects in ${ms.toFixed(0)} ms = ${Math.round((objs.length / ms) * 1000)} objects/s (${((ms * 1000) / objs.length).toFixed(1)} µs each)`,
  );
};
console.log('\n## throughput (default rule set, one core)\n');
run('mixed corpus objects', objects);
run('built-in kinds only', builtIns);
