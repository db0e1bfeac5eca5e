// The fenced blocks of README.md and docs/**/*.md, each with where it starts and the doc-test
// directive written on the line before it, for test/e2e/docs.test.ts: docs are executed, so they
// cannot drift from the code. Pure but for reading the files.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * What the HTML comment right before a block asks of the doc test:
 * - none: run the block as its language says (sh: bash; yaml: apply as a dry run; json: parse; ts: compile)
 * - `<!-- doc-test: skip reason=… -->`: not run; the reason is required and counted
 * - `<!-- doc-test: fragment kind=K -->`: a YAML part of a K (e.g. a Release's spec), applied inside one
 * - `<!-- doc-test: dev -->`: a shell block run in the environment a running `convoy dev` prints
 * - `<!-- doc-test: api -->`: a shell block run by docs.test.ts against a cluster where convoy's API is
 *   registered (aggregation layer, controller-manager --api-ui) and namespace shop holds a Release web
 */
export type Directive =
  | { readonly kind: 'run' }
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'fragment'; readonly of: string }
  | { readonly kind: 'dev' }
  | { readonly kind: 'api' };

export interface DocBlock {
  /** Relative to the repository root, e.g. docs/sources.md. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string's first word; '' when none. */
  readonly lang: string;
  readonly text: string;
  readonly directive: Directive;
}

export const LANGS = ['sh', 'yaml', 'json', 'ts', 'text'] as const;

export const HOW_TO_MARK = [
  'How to mark a block (an HTML comment on the line right before its opening fence):',
  '  <!-- doc-test: skip reason=why it cannot run here -->   not run (keep these rare; the reason is printed)',
  '  <!-- doc-test: fragment kind=Release -->               YAML that is part of a Release (or Role, …)',
  '  <!-- doc-test: dev -->                                 shell run against a running `convoy dev`',
  "  <!-- doc-test: api -->                                 shell run with convoy's API (--api-ui) registered",
  'Illustrative output goes in a ```text block; every block needs a language: sh, yaml, json, ts or text.',
].join('\n');

const DIRECTIVE = /^<!--\s*doc-test:\s*(.*?)\s*-->$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

/** The directive of one comment body ("skip reason=…"), or a problem. */
export function parseDirective(body: string): Directive | { readonly problem: string } {
  const [word = '', ...rest] = body.split(/\s+/);
  const args = rest.join(' ');
  switch (word) {
    case 'skip': {
      const m = /^reason=(.+)$/.exec(args);
      const reason = m?.[1]?.replace(/^["']|["']$/g, '').trim() ?? '';
      return reason === ''
        ? { problem: 'doc-test: skip needs reason=… saying why' }
        : { kind: 'skip', reason };
    }
    case 'fragment': {
      const m = /^kind=([A-Za-z]+)$/.exec(args);
      return m?.[1] === undefined
        ? { problem: 'doc-test: fragment needs kind=Kind' }
        : { kind: 'fragment', of: m[1] };
    }
    case 'dev':
    case 'api':
      return args === ''
        ? { kind: word }
        : { problem: `doc-test: ${word} takes no arguments, got "${args}"` };
    default:
      return { problem: `unknown doc-test directive "${body}"` };
  }
}

export interface Extracted {
  readonly blocks: readonly DocBlock[];
  /** "file:line: what is wrong" for directives that do not parse or stand before no block. */
  readonly problems: readonly string[];
}

/** Blocks of one Markdown text; indented fences (in list items) count, their indent removed. */
export function extractBlocks(file: string, markdown: string): Extracted {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  let pending: { directive: Directive; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const d = DIRECTIVE.exec(line.trim());
    if (d !== null) {
      const parsed = parseDirective(d[1] ?? '');
      if ('problem' in parsed) problems.push(`${file}:${i + 1}: ${parsed.problem}`);
      else pending = { directive: parsed, line: i + 1 };
      continue;
    }
    const open = FENCE.exec(line);
    if (open === null) {
      if (pending !== undefined && line.trim() !== '') {
        problems.push(`${file}:${pending.line}: a doc-test comment must stand right before a fenced block`);
        pending = undefined;
      }
      continue;
    }
    const indent = open[1] ?? '';
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j] ?? '';
      const close = /^(`{3,}|~{3,})$/.exec(l.trim())?.[1];
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) break;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    blocks.push({
      file,
      line: i + 1,
      lang: open[3] ?? '',
      text: `${body.join('\n')}\n`,
      directive: pending?.directive ?? { kind: 'run' },
    });
    pending = undefined;
    i = j;
  }
  if (pending !== undefined)
    problems.push(`${file}:${pending.line}: a doc-test comment must stand right before a fenced block`);
  return { blocks, problems };
}

/** README.md and every docs/**.md under `root`, in a stable order. */
export async function docFiles(root: string): Promise<string[]> {
  const out = ['README.md'];
  const walk = async (dir: string): Promise<void> => {
    for (const ent of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = join(dir, ent.name);
      if (ent.isDirectory()) await walk(full);
      else if (ent.name.endsWith('.md')) out.push(relative(root, full));
    }
  };
  await walk(join(root, 'docs'));
  return out;
}

export async function extractAll(root: string): Promise<Extracted> {
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  for (const file of await docFiles(root)) {
    const got = extractBlocks(file, await readFile(join(root, file), 'utf8'));
    blocks.push(...got.blocks);
    problems.push(...got.problems);
  }
  return { blocks, problems };
}

/** How a failure names a block: the file, line and first line, so the reader finds it at once. */
export function blockName(b: DocBlock): string {
  const first = b.text.split('\n', 1)[0] ?? '';
  return `${b.file}:${b.line} (\`\`\`${b.lang}: ${first.length > 60 ? `${first.slice(0, 59)}…` : first})`;
}
