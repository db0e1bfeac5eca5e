import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ParseJob } from './parse-job.ts';
import { MAX_PARSE_CHILDREN, type ParseLimits, parseChildren, parseToolOutput } from './parse-off-thread.ts';

const HELM: ParseJob = { kind: 'helm', postRendered: false, vars: undefined };
const YAML: ParseJob = { kind: 'yaml', file: 'kustomize build', vars: undefined };
const LIMITS: ParseLimits = { tool: 'helm', where: 'helm template', timeoutMs: 60_000, maxHeapMb: 256 };
/** Always in a child, however small the output. */
const CHILD: ParseLimits = { ...LIMITS, minBytes: 0 };

const cmDoc = (i: number, source = 'c/templates/cm.yaml') =>
  `---\n# Source: ${source}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  k: "${'v'.repeat(100)}"\n`;
const output = (text: string) => Buffer.from(text, 'utf8');
/** The one problem a parse stopped by a limit gives. */
const refused = (message: string) => ({ ok: false, problems: [{ where: 'helm template', message }] });
const mib = (text: string) => `${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB`;

describe('parseToolOutput', () => {
  test('gives the same manifests from a child as inline, in order, over many batches', async () => {
    const text = Array.from({ length: 50 }, (_, i) => cmDoc(i)).join('');
    const inline = await parseToolOutput(HELM, output(text), LIMITS);
    const child = await parseToolOutput(HELM, output(text), { ...CHILD, batchBytes: 1 });
    assert.ok(inline.ok);
    assert.deepEqual(child, inline);
    assert.equal(inline.value.length, 50);
    assert.deepEqual(inline.value[49]?.origin, { file: 'c/templates/cm.yaml', document: 1 });
  });

  test('maps helm hooks and substitutes variables in the child as inline', async () => {
    const text = `${cmDoc(1)}---\n# Source: c/templates/hook.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: h\n  annotations: {"helm.sh/hook": pre-install}\nspec: {containers: [{name: c, image: "\${IMAGE}"}]}\n`;
    const job: ParseJob = { kind: 'helm', postRendered: false, vars: { IMAGE: 'img:1' } };
    const inline = await parseToolOutput(job, output(text), LIMITS);
    assert.ok(inline.ok);
    assert.deepEqual(await parseToolOutput(job, output(text), CHILD), inline);
    assert.match(JSON.stringify(inline.value), /img:1/);
  });

  // Each bad input is refused with the same problems, naming the same place, from a child as inline.
  const bad: [string, string, RegExp][] = [
    ['a syntax error', 'a: [1\n', /kustomize build document 1, line \d+ column \d+/],
    [
      'an alias bomb',
      `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
        { length: 12 },
        (_, i) =>
          `b${i}: &b${i} [${Array(10)
            .fill(i === 0 ? '*a' : `*b${i - 1}`)
            .join(', ')}]`,
      ).join('\n')}\n`,
      /alias/i,
    ],
    [
      'an integer past 2^53',
      'apiVersion: v1\nkind: X\nmetadata: {name: n}\nbig: 9007199254740993\n',
      /too large/,
    ],
    ['a boolean key', 'apiVersion: v1\nkind: X\nmetadata: {name: n, labels: {n: x}}\n', /boolean/],
    ['a document that is not a mapping', '- a\n- b\n', /not an object/],
  ];
  for (const [what, text, message] of bad) {
    test(`refuses ${what} with the same problems from a child as inline`, async () => {
      const inline = await parseToolOutput(YAML, output(text), LIMITS);
      assert.equal(inline.ok, false);
      assert.match(JSON.stringify(inline), message);
      assert.deepEqual(await parseToolOutput(YAML, output(text), CHILD), inline);
    });
  }

  test('stops a parse that takes longer than the time limit', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => cmDoc(i)).join('');
    const out = await parseToolOutput(HELM, output(text), { ...CHILD, timeoutMs: 1 });
    assert.deepEqual(out, refused(`parsing helm's output (${mib(text)}) was stopped after 0.001 s`));
  });

  test('stops a parse when the reconcile is cancelled, before or during it', async () => {
    const cancelled = refused('helm was stopped: the reconcile was cancelled');
    const text = Array.from({ length: 2000 }, (_, i) => cmDoc(i)).join('');
    assert.deepEqual(
      await parseToolOutput(HELM, output(text), { ...CHILD, signal: AbortSignal.abort() }),
      cancelled,
    );
    const ac = new AbortController();
    const running = parseToolOutput(HELM, output(text), { ...CHILD, signal: ac.signal });
    ac.abort();
    assert.deepEqual(await running, cancelled);
  });

  test('runs at most MAX_PARSE_CHILDREN children at once; the others wait their turn', async () => {
    const text = Array.from({ length: 500 }, (_, i) => cmDoc(i)).join('');
    const waiter = new AbortController();
    const all = Array.from({ length: MAX_PARSE_CHILDREN + 2 }, (_, i) =>
      parseToolOutput(
        HELM,
        output(text),
        i === MAX_PARSE_CHILDREN + 1 ? { ...CHILD, signal: waiter.signal } : CHILD,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(parseChildren(), { running: MAX_PARSE_CHILDREN, waiting: 2 });
    // A parse cancelled while it waits leaves the queue at once.
    waiter.abort();
    assert.deepEqual(await all.at(-1), refused('helm was stopped: the reconcile was cancelled'));
    assert.deepEqual(parseChildren(), { running: MAX_PARSE_CHILDREN, waiting: 1 });
    for (const out of await Promise.all(all.slice(0, -1))) assert.equal(out.ok && out.value.length, 500);
    assert.deepEqual(parseChildren(), { running: 0, waiting: 0 });
  });

  test('says so when the parse needs more memory than its limit', async () => {
    // ~8 MB of YAML into a 16 MiB heap.
    const text = Array.from({ length: 60_000 }, (_, i) => cmDoc(i)).join('');
    const out = await parseToolOutput(HELM, output(text), { ...CHILD, maxHeapMb: 16 });
    assert.deepEqual(
      out,
      refused(`parsing helm's output (${mib(text)}) needed more than its 16 MiB of memory`),
    );
  });
});
