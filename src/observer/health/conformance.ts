// Runs health rules against the Argo CD health corpus (<repo>/../shared/conformance/health) and
// scores agreement. Shared by conformance.test.ts and bench/health-rules.ts. Corpus mapping:
// Healthy → pass; Progressing, Degraded → fail; Suspended reported apart; Missing, Unknown excluded.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseYamlObjects } from '../../rules/ruleset-yaml.ts';
import type { Evaluator } from './evaluator.ts';
import { groupOf, type KubeObject, type RuleResult } from './types.ts';

export interface ConformanceCase {
  readonly id: string;
  /** The corpus: 'gitops-engine', 'argo-cd', or '' for a directory labelled by file names. */
  readonly source: string;
  readonly group: string;
  readonly kind: string;
  readonly apiVersion: string;
  readonly file: string;
  readonly expected: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';
  readonly message: string | null;
}

export interface LoadedCase {
  readonly c: ConformanceCase;
  readonly object: KubeObject;
  /** Set when the strict parse failed and the re-indenting fallback was used. */
  readonly note?: string;
}

export interface Corpus {
  readonly dir: string;
  readonly cases: readonly LoadedCase[];
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
}

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function conformanceDir(): string {
  return process.env.CONVOY_CONFORMANCE_DIR ?? join(repoRoot, '..', 'shared', 'conformance', 'health');
}

/**
 * Three fixtures continue a single-quoted multi-line message at the indentation of its key,
 * which node `yaml` rejects (PyYAML and Go's parser accept it). Indent such continuation lines
 * by two spaces so they belong to the scalar.
 */
export function reindentQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let open: number | undefined; // indentation of the key whose quoted value is still open
  const oddQuotes = (s: string) => (s.replace(/''/g, '').match(/'/g)?.length ?? 0) % 2 === 1;
  for (const line of lines) {
    if (open !== undefined) {
      const indent = line.length - line.trimStart().length;
      out.push(indent <= open && line.trim() !== '' ? `${' '.repeat(open + 2 - indent)}${line}` : line);
      if (oddQuotes(line)) open = undefined;
      continue;
    }
    out.push(line);
    const m = /^(\s*)(?:- )?[\w.-]+: '(.*)$/.exec(line);
    if (m && oddQuotes(`'${m[2]}`)) open = (m[1] ?? '').length + (line.trimStart().startsWith('- ') ? 2 : 0);
  }
  return out.join('\n');
}

const EXPECTED = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;

/**
 * A directory of labelled fixtures: DIR/cases.json (entries with at least file and expected) or,
 * without it, every .yaml/.yml/.json file below DIR labelled by the first word of its name
 * (`degraded-no-secret.yaml` → Degraded). Files without such a word are listed as skipped.
 */
export function loadLabelledDir(dir: string): Corpus {
  if (existsSync(join(dir, 'cases.json'))) return loadCorpus(dir);
  const files = walk(dir);
  const cases: ConformanceCase[] = [];
  const unlabelled: { id: string; reason: string }[] = [];
  for (const f of files) {
    const rel = relative(dir, f);
    const base = rel.split('/').at(-1) ?? rel;
    const word = base.split(/[-_.]/)[0]?.toLowerCase() ?? '';
    const expected = EXPECTED.find((e) => e.toLowerCase() === word);
    if (expected === undefined) {
      unlabelled.push({
        id: rel,
        reason: `no label: the name must start with ${EXPECTED.join(', ').toLowerCase()}`,
      });
      continue;
    }
    cases.push({
      id: rel.replace(/\.(ya?ml|json)$/, ''),
      source: '',
      group: '',
      kind: '',
      apiVersion: '',
      file: rel,
      expected,
      message: null,
    });
  }
  const corpus = loadCases(dir, cases);
  return { ...corpus, skipped: [...unlabelled, ...corpus.skipped] };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : /\.(ya?ml|json)$/.test(e.name) ? [join(dir, e.name)] : [],
    );
}

export function loadCorpus(dir = conformanceDir()): Corpus {
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as ConformanceCase[];
  return loadCases(dir, cases);
}

function loadCases(dir: string, cases: readonly ConformanceCase[]): Corpus {
  const loaded: LoadedCase[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const c of cases) {
    if (!(EXPECTED as readonly string[]).includes(c.expected) || typeof c.file !== 'string') {
      skipped.push({
        id: String(c.id ?? c.file),
        reason: `want file and expected (one of ${EXPECTED.join(', ')})`,
      });
      continue;
    }
    const path = join(dir, c.file);
    if (!existsSync(path)) {
      skipped.push({ id: c.id ?? c.file, reason: `${c.file} not found` });
      continue;
    }
    const text = readFileSync(path, 'utf8').replace(/\r\n/g, '\n');
    let parsed = parseYamlObjects(text);
    let note: string | undefined;
    if (!parsed.ok) {
      const strictError = parsed.message;
      parsed = parseYamlObjects(reindentQuotedContinuations(text));
      note = `strict parse failed (${strictError}); parsed after re-indenting a quoted continuation`;
      if (!parsed.ok) {
        skipped.push({ id: c.id, reason: `${strictError}; fallback: ${parsed.message}` });
        continue;
      }
    }
    const [object] = parsed.objects;
    if (object === undefined || parsed.objects.length !== 1) {
      skipped.push({ id: c.id, reason: `want one object, found ${parsed.objects.length}` });
      continue;
    }
    const o = object as unknown as KubeObject;
    const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
    const filled: ConformanceCase = {
      ...c,
      id: c.id ?? c.file,
      source: c.source ?? '',
      apiVersion: c.apiVersion || apiVersion,
      kind: c.kind || String(o.kind ?? ''),
      group: c.group || groupOf(apiVersion) || 'core',
    };
    loaded.push({ c: filled, object: o, ...(note ? { note } : {}) });
  }
  return { dir, cases: loaded, skipped };
}

export function corpusAvailable(dir = conformanceDir()): boolean {
  return existsSync(join(dir, 'cases.json'));
}

export type Expectation = 'pass' | 'fail' | 'suspended' | 'excluded';

export function expectation(expected: ConformanceCase['expected']): Expectation {
  switch (expected) {
    case 'Healthy':
      return 'pass';
    case 'Progressing':
    case 'Degraded':
      return 'fail';
    case 'Suspended':
      return 'suspended';
    case 'Missing':
    case 'Unknown':
      return 'excluded';
  }
}

/** noRule counts as pass: an object no rule matches is Healthy once it exists. */
export type Verdict = 'pass' | 'fail' | 'error';

export function verdictOf(r: RuleResult): Verdict {
  switch (r.kind) {
    case 'pass':
    case 'noRule':
      return 'pass';
    case 'fail':
      return 'fail';
    case 'error':
      return 'error';
  }
}

export interface Scored {
  readonly c: ConformanceCase;
  readonly expect: Expectation;
  readonly result: RuleResult;
  readonly verdict: Verdict;
  readonly agrees: boolean;
}

export function score(ev: Evaluator, cases: readonly LoadedCase[]): Scored[] {
  return cases.map(({ c, object }) => {
    const result = ev.evaluate(object);
    const verdict = verdictOf(result);
    const expect = expectation(c.expected);
    return { c, expect, result, verdict, agrees: expect === verdict };
  });
}

export interface AgreementRow {
  readonly key: string;
  readonly agree: number;
  /** Cases scored as pass or fail (suspended and excluded left out). */
  readonly scored: number;
  readonly errors: number;
  readonly suspended: { readonly pass: number; readonly fail: number };
}

export function agreement(scored: readonly Scored[], keyOf: (s: Scored) => string): AgreementRow[] {
  const rows = new Map<string, { agree: number; scored: number; errors: number; sp: number; sf: number }>();
  for (const s of scored) {
    const k = keyOf(s);
    const row = rows.get(k) ?? { agree: 0, scored: 0, errors: 0, sp: 0, sf: 0 };
    rows.set(k, row);
    if (s.verdict === 'error') row.errors++;
    if (s.expect === 'pass' || s.expect === 'fail') {
      row.scored++;
      if (s.agrees) row.agree++;
    } else if (s.expect === 'suspended') {
      if (s.verdict === 'pass') row.sp++;
      else if (s.verdict === 'fail') row.sf++;
    }
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, r]) => ({
      key,
      agree: r.agree,
      scored: r.scored,
      errors: r.errors,
      suspended: { pass: r.sp, fail: r.sf },
    }));
}

export function formatAgreementTable(rows: readonly AgreementRow[], title: string): string {
  const lines = [
    `| ${title} | agree | scored | % | suspended → pass/fail | errors |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const pct = (a: number, n: number) => (n === 0 ? '–' : `${((100 * a) / n).toFixed(1)}`);
  let a = 0;
  let n = 0;
  let e = 0;
  let sp = 0;
  let sf = 0;
  for (const r of rows) {
    lines.push(
      `| ${r.key} | ${r.agree} | ${r.scored} | ${pct(r.agree, r.scored)} | ${r.suspended.pass}/${r.suspended.fail} | ${r.errors} |`,
    );
    a += r.agree;
    n += r.scored;
    e += r.errors;
    sp += r.suspended.pass;
    sf += r.suspended.fail;
  }
  lines.push(`| **total** | ${a} | ${n} | ${pct(a, n)} | ${sp}/${sf} | ${e} |`);
  return lines.join('\n');
}
