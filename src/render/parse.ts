// Parsing one manifest file into objects: multi-document YAML or JSON, empty documents skipped,
// `kind: List` flattened, every value checked to be plain JSON so the render can be hashed and sent.
import { type Document, isPair, isScalar, parseAllDocuments, type Tags, visit } from 'yaml';
import { errorMessage } from '../lib/errors.ts';
import { formatOrigin, type Problem } from './errors.ts';
import { type Checked, fail, ok } from './result.ts';
import type { Manifest, Origin } from './types.ts';

export type ManifestFormat = 'yaml' | 'json';

/**
 * YAML 1.1, as kubectl reads manifests (sigs.k8s.io/yaml on go-yaml v2): `mode: 0644` is octal 420
 * and `yes` a boolean, so a file means what it means to kubectl. Timestamps stay strings (Kubernetes
 * wants RFC 3339 strings, not dates). Integers are read as bigint so that one past 2^53 is an error
 * instead of a silently different number.
 */
const YAML_OPTIONS = {
  version: '1.1',
  customTags: (tags: Tags) =>
    tags.filter((t) => (typeof t === 'string' ? t !== 'timestamp' : t.tag !== 'tag:yaml.org,2002:timestamp')),
  intAsBigInt: true,
  uniqueKeys: true,
  prettyErrors: true,
} as const;

const JSON_OPTIONS = {
  version: '1.2',
  schema: 'json',
  intAsBigInt: true,
  uniqueKeys: true,
  prettyErrors: true,
} as const;

/** Aliases expanded per document, against "billion laughs" files. */
const MAX_ALIAS_COUNT = 1000;

export function parseManifests(text: string, file: string, format: ManifestFormat): Checked<Manifest[]> {
  const docs = parseAllDocuments(text, format === 'yaml' ? YAML_OPTIONS : JSON_OPTIONS);
  const problems: Problem[] = [];
  const manifests: Manifest[] = [];
  docs.forEach((doc, i) => {
    const document = i + 1;
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const pos = e.linePos?.[0];
        const at = pos === undefined ? '' : `, line ${pos.line} column ${pos.col}`;
        problems.push({ where: `${file} document ${document}${at}`, message: firstLine(e.message) });
      }
      return;
    }
    if (format === 'yaml') {
      const keys = booleanKeys(doc);
      if (keys.length > 0) {
        for (const message of keys) problems.push({ where: `${file} document ${document}`, message });
        return;
      }
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      problems.push({ where: `${file} document ${document}`, message: errorMessage(e) });
      return;
    }
    if (value === null || value === undefined) return; // an empty document, or only comments
    const origin: Origin = { file, document };
    const plain = toPlainJson(value, '', origin, problems);
    if (plain === undefined) return;
    if (!isRecord(plain)) {
      problems.push({ where: formatOrigin(origin), message: 'document is not an object (a YAML mapping)' });
      return;
    }
    flatten(plain, origin, manifests, problems);
  });
  return problems.length === 0 ? ok(manifests) : fail(problems);
}

/**
 * Mapping keys YAML 1.1 reads as booleans (`n`, `y`, `on`, `off`, `no`, `yes`), as kubectl does: a
 * label `n: x` becomes the label "false", which nobody means, and the API's messages then name
 * `labels.false`. Refused with the key as written and where it is, so the author quotes it.
 */
function booleanKeys(doc: Document.Parsed): string[] {
  const out: string[] = [];
  visit(doc, {
    Pair(_, pair, path) {
      const key = pair.key;
      if (!isScalar(key) || typeof key.value !== 'boolean' || typeof key.source !== 'string') return;
      // A !!set's members are keys too; toPlainJson refuses the set as a whole.
      const parent = path[path.length - 1] as { tag?: string } | undefined;
      if (parent?.tag === 'tag:yaml.org,2002:set') return;
      const at = path
        .filter(isPair)
        .map((p) => (isScalar(p.key) ? String(p.key.source ?? p.key.value) : '?'))
        .join('.');
      out.push(
        `key ${key.source}${at === '' ? '' : ` (in ${at})`} is the boolean ${key.value} in YAML 1.1, as kubectl reads it: quote it ("${key.source}") to mean the text`,
      );
    },
  });
  return out;
}

/** The message without the position and source excerpt that prettyErrors appends. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

function flatten(obj: Record<string, unknown>, origin: Origin, out: Manifest[], problems: Problem[]): void {
  if (obj.kind !== 'List' || !Array.isArray(obj.items)) {
    out.push({ object: obj, origin });
    return;
  }
  obj.items.forEach((item, i) => {
    const itemOrigin: Origin = { ...origin, item: i + 1 };
    if (!isRecord(item)) {
      problems.push({ where: formatOrigin(itemOrigin), message: 'list item is not an object' });
      return;
    }
    out.push({ object: item, origin: itemOrigin });
  });
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype
  );
}

const ANY = /^/;

/**
 * The string as one flat sequence of characters. The YAML library builds a quoted scalar a character
 * at a time (`res += ch`), which V8 keeps as a rope of one node per character: 500 KB of such values
 * held 16 MB of heap, and a 50 MB render 1.5 GiB, in the parser and in every cache keeping the render.
 * A regular expression needs the flat string, and V8 flattens the rope in place when one runs.
 */
function flat(s: string): string {
  ANY.test(s);
  return s;
}

/**
 * Converts what the YAML library gives into plain JSON values, or records a problem and returns
 * undefined. Binary (`!!binary`) becomes base64, as Kubernetes encodes []byte.
 */
function toPlainJson(v: unknown, path: string, origin: Origin, problems: Problem[]): unknown {
  const bad = (message: string) => {
    problems.push({ where: formatOrigin(origin), message: `${path === '' ? 'document' : path}: ${message}` });
    return undefined;
  };
  switch (typeof v) {
    case 'string':
      return flat(v);
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : bad(`${v} is not a JSON number`);
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v)
        : bad(`integer ${v} is too large to keep exactly; quote it`);
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out: unknown[] = [];
        for (const [i, item] of v.entries()) {
          const p = toPlainJson(item, `${path}[${i}]`, origin, problems);
          if (p === undefined) return undefined;
          out.push(p);
        }
        return out;
      }
      if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
      if (!isRecord(v)) return bad(`unsupported YAML value (${v.constructor?.name ?? 'object'})`);
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        const p = toPlainJson(item, path === '' ? k : `${path}.${k}`, origin, problems);
        if (p === undefined) return undefined;
        out[k] = p;
      }
      return out;
    }
    default:
      return bad(`unsupported YAML value (${typeof v})`);
  }
}
