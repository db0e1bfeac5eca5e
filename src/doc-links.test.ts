// Links into the docs must land: every `docs/<page>.md#<anchor>` a source comment, test or bench names,
// and every `[text](page.md#anchor)` between docs pages, must point at a page that exists and a heading
// it has (GitHub's anchors: lowercase, punctuation dropped, spaces to hyphens). Code links to
// docs/design.md by section, so renaming a heading there without the links fails here.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

async function filesUnder(dir: string, ext: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path, ext)));
    else if (ext.test(e.name)) out.push(path);
  }
  return out;
}

/** GitHub's anchor of a heading's text. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

const anchors = new Map<string, Set<string>>();
async function anchorsOf(page: string): Promise<Set<string> | undefined> {
  const known = anchors.get(page);
  if (known !== undefined) return known;
  // A missing page is what the test reports (the link is broken); any other read error fails it.
  let text: string;
  try {
    text = await readFile(join(ROOT, page), 'utf8');
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw err;
  }
  const set = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!fenced && m?.[1] !== undefined) set.add(anchorOf(m[1]));
  }
  anchors.set(page, set);
  return set;
}

test('anchorOf follows GitHub', () => {
  assert.equal(anchorOf('Tenancy and impersonation'), 'tenancy-and-impersonation');
  assert.equal(anchorOf('HTTP API (`--api-*`)'), 'http-api---api-');
  assert.equal(anchorOf('Re-check backoff'), 're-check-backoff');
});

test('every link to a docs section names a page and a heading that exist', async () => {
  const links: { from: string; page: string; anchor: string }[] = [];
  for (const file of [
    ...(await filesUnder('src', /\.ts$/)),
    ...(await filesUnder('test', /\.ts$/)),
    ...(await filesUnder('bench', /\.ts$/)),
  ]) {
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\b(docs\/[\w/.-]+\.md)#([\w-]+)/g))
      if (m[1] !== undefined && m[2] !== undefined) links.push({ from: file, page: m[1], anchor: m[2] });
  }
  for (const file of ['README.md', 'CONTRIBUTING.md', ...(await filesUnder('docs', /\.md$/))]) {
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\]\(([\w/.-]+\.md)?#([\w-]+)\)/g)) {
      if (m[2] === undefined) continue;
      const page = m[1] === undefined ? file : relative(ROOT, join(ROOT, dirname(file), m[1]));
      links.push({ from: file, page, anchor: m[2] });
    }
  }
  assert.ok(
    links.some((l) => l.page === 'docs/design.md'),
    'no link to docs/design.md found at all',
  );
  const broken: string[] = [];
  for (const l of links) {
    const set = await anchorsOf(l.page);
    if (set === undefined) broken.push(`${l.from}: ${l.page} does not exist`);
    else if (!set.has(l.anchor)) broken.push(`${l.from}: ${l.page} has no heading #${l.anchor}`);
  }
  assert.deepEqual(broken, []);
});
