// npm run bench:health-rules — convoy's default rules and rule library against the Argo CD health
// corpus (the per-group table `convoy rules eval --expect` prints), then evaluation throughput of
// the whole library on one core, and the CEL budget against hostile rules.
import { Worker } from 'node:worker_threads';
import { defaultBudget } from '../src/cel/budget.ts';
import { rulesScore } from '../src/cli/rules-eval.ts';
import { loadCorpus } from '../src/observer/health/conformance.ts';
import { newEvaluator } from '../src/observer/health/evaluator.ts';
import { defaultRuleSet } from '../src/rules/default-rules.ts';
import { libraryRuleSets } from '../src/rules/library.ts';
import { hostileRules } from '../test/support/hostile-rules.ts';

const corpus = loadCorpus();
for (const s of corpus.skipped) console.log(`skipped ${s.id}: ${s.reason}`);
for (const c of corpus.cases) if (c.note) console.log(`note ${c.c.id}: ${c.note}`);

console.log('\n## agreement with Argo CD, per API group (rules: default + library)\n');
const out = rulesScore([{ kind: 'default' }, { kind: 'library' }], corpus);
console.log(out.lines.join('\n'));

const sets = [defaultRuleSet(), ...libraryRuleSets()];
const ev = newEvaluator(sets);
console.log(`\n## throughput (${sets.length} rule sets, ${ev.rules.length} rules, one core)\n`);
const n = 20_000;
const pick = (objs: readonly (typeof corpus.cases)[number]['object'][]) =>
  Array.from({ length: n }, (_, i) => objs[i % objs.length]).filter((o) => o !== undefined);
const run = (label: string, objs: ReturnType<typeof pick>) => {
  for (const o of objs.slice(0, 2000)) ev.evaluate(o); // warm up
  // CPU time of this thread, not wall time: the figure stays honest on a shared, loaded machine.
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (const o of objs) ev.evaluate(o);
  const cpu = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  const ms = (cpu.user + cpu.system) / 1000;
  console.log(
    `${label}: ${objs.length} objects in ${ms.toFixed(0)} ms CPU (${wall.toFixed(0)} ms wall) = ${Math.round((objs.length / ms) * 1000)} objects/s per core (${((ms * 1000) / objs.length).toFixed(1)} µs each)`,
  );
};
run('mixed corpus objects', pick(corpus.cases.map((c) => c.object)));
run(
  'built-in kinds only',
  pick(corpus.cases.filter((c) => c.c.source === 'gitops-engine').map((c) => c.object)),
);
const objects = pick(corpus.cases.map((c) => c.object));

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
