// npm run bench:health-rules — the default health rules against the Argo CD corpus (agreement per
// kind and overall), evaluation throughput over 10,000 objects, and the CEL budget against hostile rules.
import { Worker } from 'node:worker_threads';
import { defaultBudget } from '../src/observer/health/cel-budget.ts';
import { agreement, formatAgreementTable, loadCorpus, score } from '../src/observer/health/conformance.ts';
import { newEvaluator } from '../src/observer/health/evaluator.ts';
import { defaultRuleSet } from '../src/rules/default-rules.ts';
import { hostileRules } from '../test/support/hostile-rules.ts';

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

// The CEL budget: each hostile rule alone against one object, the time until it ends as "exceeded its
// budget" and the process's peak RSS meanwhile; then the same rule again (within the cool-down, skipped).
console.log('\n## CEL budget (hostile rules, test/support/hostile-rules.ts)\n');
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'tenant' } };
const rssStart = process.memoryUsage().rss;
let rssPeak = rssStart;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 5);
for (const [what, healthy] of hostileRules) {
  const hostile = newEvaluator([
    {
      metadata: { name: 'h', namespace: 'tenant' },
      spec: { rules: [{ name: 'r', match: { kinds: ['ConfigMap'] }, healthy }] },
    },
  ]);
  const t0 = performance.now();
  const r = hostile.evaluate(cm);
  const ms = performance.now() - t0;
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  const t1 = performance.now();
  hostile.evaluate(cm);
  const again = performance.now() - t1;
  const msg = r.kind === 'error' ? r.message.replace(/^rule tenant\/h\/r /, '') : r.kind;
  console.log(`${what}: ${ms.toFixed(0)} ms, then ${again.toFixed(2)} ms (cool-down) — ${msg}`);
  await new Promise((resolve) => setImmediate(resolve));
}
clearInterval(sampler);
const mb = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
console.log(
  `RSS: ${mb(rssStart)} before, ${mb(rssPeak)} peak (${defaultBudget.expression.cost.toLocaleString('en-US')} units / ${defaultBudget.expression.ms} ms per evaluation, ${defaultBudget.object.cost.toLocaleString('en-US')} units / ${defaultBudget.object.ms} ms per object)`,
);

// Why in-process: the cheapest isolation, a worker thread, costs a structured clone of each object and a
// message round trip — compared with the evaluation it would isolate.
const worker = new Worker(
  'const { parentPort } = require("node:worker_threads"); parentPort.on("message", (o) => parentPort.postMessage(o.kind));',
  { eval: true },
);
const sample = objects.slice(0, 2000);
const roundTrip = (o: unknown) =>
  new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.postMessage(o);
  });
for (const o of sample.slice(0, 200)) await roundTrip(o);
const w0 = performance.now();
for (const o of sample) await roundTrip(o);
const perTrip = ((performance.now() - w0) * 1000) / sample.length;
const e0 = performance.now();
for (const o of sample) ev.evaluate(o);
const perEval = ((performance.now() - e0) * 1000) / sample.length;
await worker.terminate();
console.log(
  `worker round trip (clone + message, no evaluation): ${perTrip.toFixed(1)} µs per object; in-process metered evaluation: ${perEval.toFixed(1)} µs per object`,
);
