// A fast reader for the block-style YAML that kubectl and convoy write kubeconfigs in (nested
// mappings, `- ` sequences, plain, 'single' and "double" quoted one-line scalars, comments). The yaml
// library's first parse costs convoy get about 0.02 CPU-s (a tenth of its start-up); this reader almost nothing.
// It answers exactly what yaml's parse would or nothing at all: anything outside that subset (flow
// collections, anchors, tags, block scalars, numbers, escapes, tabs, duplicate keys, ...) returns
// undefined and the caller parses the file with the yaml library. Pure.

type Value = null | boolean | string | Value[] | { [key: string]: Value };

interface Line {
  readonly indent: number;
  readonly text: string;
}

class Unsupported extends Error {}

const unsupported = (): never => {
  throw new Unsupported();
};

/** The document as yaml's parse gives it, or undefined when it is not in the subset. */
export function parseSimpleYaml(text: string): unknown {
  try {
    return parseLines(linesOf(text));
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

function linesOf(text: string): Line[] {
  if (/[\t\r\0\uFEFF]/.test(text)) unsupported();
  const lines: Line[] = [];
  let first = true;
  for (const raw of text.split('\n')) {
    const trimmed = raw.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (first && raw === '---') {
      first = false;
      continue;
    }
    first = false;
    if (raw.startsWith('---') || raw.startsWith('...') || raw.startsWith('%')) unsupported();
    lines.push({ indent: raw.length - trimmed.length, text: trimmed.trimEnd() });
  }
  return lines;
}

function parseLines(lines: Line[]): Value {
  if (lines.length === 0 || lines[0]?.indent !== 0) unsupported();
  const pos = { i: 0 };
  const value = block(lines, pos, 0);
  if (pos.i !== lines.length) unsupported();
  return value;
}

const isItem = (text: string) => text === '-' || text.startsWith('- ');

/** The block whose lines start at `indent`. */
function block(lines: Line[], pos: { i: number }, indent: number): Value {
  const line = lines[pos.i] ?? unsupported();
  if (line.indent !== indent) unsupported();
  if (isItem(line.text)) return sequence(lines, pos, indent);
  if (keyOf(line.text) === undefined) {
    // a lone scalar: only as a sequence item's value (handled there) or a whole document
    pos.i++;
    return scalar(line.text);
  }
  return mapping(lines, pos, indent);
}

function sequence(lines: Line[], pos: { i: number }, indent: number): Value[] {
  const items: Value[] = [];
  for (let line = lines[pos.i]; line?.indent === indent && isItem(line.text); line = lines[pos.i]) {
    const rest = line.text.slice(1).trimStart();
    if (rest === '') {
      pos.i++;
      const next = lines[pos.i];
      items.push(next !== undefined && next.indent > indent ? block(lines, pos, next.indent) : null);
      continue;
    }
    // "- key: v" starts a mapping whose other keys line up with "key"; "- x" is a scalar item
    const inner = indent + (line.text.length - rest.length);
    lines[pos.i] = { indent: inner, text: rest };
    if (isItem(rest) || keyOf(rest) !== undefined) items.push(block(lines, pos, inner));
    else {
      pos.i++;
      items.push(scalar(rest));
    }
  }
  const next = lines[pos.i];
  if (next !== undefined && next.indent > indent) unsupported();
  return items;
}

function mapping(lines: Line[], pos: { i: number }, indent: number): { [key: string]: Value } {
  const out: { [key: string]: Value } = {};
  for (let line = lines[pos.i]; line?.indent === indent; line = lines[pos.i]) {
    if (isItem(line.text)) unsupported();
    const kv = keyOf(line.text) ?? unsupported();
    if (Object.hasOwn(out, kv.key) || kv.key === '__proto__') unsupported();
    pos.i++;
    const next = lines[pos.i];
    if (kv.value !== '') {
      if (next !== undefined && next.indent > indent) unsupported(); // a multi-line scalar
      out[kv.key] = scalar(kv.value);
    } else if (next !== undefined && next.indent > indent) {
      out[kv.key] = block(lines, pos, next.indent);
    } else if (next !== undefined && next.indent === indent && isItem(next.text)) {
      out[kv.key] = sequence(lines, pos, indent); // kubectl's "key:\n- item" at the key's indent
    } else {
      out[kv.key] = null;
    }
  }
  const next = lines[pos.i];
  if (next !== undefined && next.indent > indent) unsupported();
  return out;
}

/** `key: value` or `key:` with a plain or quoted key that is a string; undefined when not a key. */
function keyOf(text: string): { key: string; value: string } | undefined {
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = quoted(text);
    if (q === undefined) return undefined;
    const after = text.slice(q.length);
    if (after === ':') return { key: q.value, value: '' };
    if (after.startsWith(': ')) return { key: q.value, value: after.slice(2).trim() };
    return undefined;
  }
  const colon = text.indexOf(': ');
  const end = colon >= 0 ? colon : text.endsWith(':') ? text.length - 1 : -1;
  if (end <= 0) return undefined;
  const key = text.slice(0, end);
  if (plainString(key) === undefined || key.endsWith(' ') || key.length > 1000) unsupported();
  return { key, value: colon >= 0 ? text.slice(colon + 2).trim() : '' };
}

const NULLS = new Set(['null', 'Null', 'NULL', '~']);
const TRUES = new Set(['true', 'True', 'TRUE']);
const FALSES = new Set(['false', 'False', 'FALSE']);

function scalar(text: string): Value {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = quoted(text) ?? unsupported();
    if (q.length !== text.length) unsupported();
    return q.value;
  }
  if (NULLS.has(text)) return null;
  if (TRUES.has(text)) return true;
  if (FALSES.has(text)) return false;
  return plainString(text) ?? unsupported();
}

/** A plain scalar that yaml reads as this very string; undefined for anything else. */
function plainString(text: string): string | undefined {
  if (text === '' || NULLS.has(text) || TRUES.has(text) || FALSES.has(text)) return undefined;
  // indicators, numbers (and .inf/.nan), and what could be a key, comment or flow collection
  if (/^[-?:,[\]{}#&*!|>'"%@`0-9.+]/.test(text)) return undefined;
  if (text.includes(': ') || text.includes(' #') || text.endsWith(':')) return undefined;
  return text;
}

/** A one-line quoted scalar at the start of text, without escapes; its value and length. */
function quoted(text: string): { value: string; length: number } | undefined {
  if (text.startsWith('"')) {
    const end = text.indexOf('"', 1);
    if (end < 0) return undefined;
    const value = text.slice(1, end);
    if (value.includes('\\')) unsupported();
    return { value, length: end + 1 };
  }
  let value = '';
  for (let i = 1; i < text.length; i++) {
    if (text[i] !== "'") {
      value += text[i];
      continue;
    }
    if (text[i + 1] === "'") {
      value += "'";
      i++;
      continue;
    }
    return { value, length: i + 1 };
  }
  return undefined;
}
