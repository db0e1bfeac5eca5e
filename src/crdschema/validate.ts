// A custom resource checked against its CRD's structural schema and x-kubernetes-validations rules before
// anything of its render is applied (docs/design.md#reconcile-order). Conservative by design: it refuses
// only what the API server certainly refuses. What it cannot judge as the server does (a format, a rule
// outside this CEL environment, a transition rule, a regex this engine cannot take, a null the server may
// prune) is skipped, with why, and left to the server's dry run once the CRD is in. The value is read as
// the server reads it before validating: unknown fields pruned, defaults applied, integers as CEL int and
// numbers as double. Bounded: schema depth, steps and CPU time per object, CEL under src/cel's budget.
// Pure apart from the clocks of the budgets.
import { type Budget, ObjectBudget } from '../cel/budget.ts';
import { type CrdSchema, type Manifest, type SchemaNode, schemaOf } from './find.ts';
import { matchesPattern, patternCompiled } from './pattern.ts';
import { type CompiledRule, compileRule, rulesOf } from './rules.ts';

export type Verdict =
  /** Nothing found the server would refuse; `skipped` says what was left to it (a few, deduplicated). */
  | { readonly kind: 'valid'; readonly skipped: readonly string[] }
  | { readonly kind: 'invalid'; readonly crd: string; readonly path: string; readonly message: string }
  /** No CRD of the render serves the object's kind. */
  | { readonly kind: 'noSchema' };

export interface Limits {
  /** Schema nodes deeper than this are left to the server (a hostile CRD could nest thousands). */
  readonly maxDepth: number;
  /** Values visited, enum members compared, characters counted: one object's share. */
  readonly maxSteps: number;
  /** CPU time of one object's walk, rules included, in milliseconds. */
  readonly maxMs: number;
  /** The CEL budget of one object's rules (src/cel/budget.ts). */
  readonly cel: { readonly expression: Budget; readonly object: Budget };
}

export const defaultLimits: Limits = {
  maxDepth: 64,
  maxSteps: 1_000_000,
  maxMs: 200,
  cel: { expression: { cost: 1_000_000, ms: 100 }, object: { cost: 2_000_000, ms: 200 } },
};

/** Compiled rules by source, shared by every object of one render (compiling is the costly part). */
export type RuleCache = Map<string, CompiledRule>;

/** Checks `obj` against the schema of its kind in `index`; see the file comment for what is checked. */
export function validateObject(
  index: ReadonlyMap<string, CrdSchema>,
  obj: Manifest,
  rules: RuleCache = new Map(),
  limits: Limits = defaultLimits,
): Verdict {
  const found = schemaOf(index, obj);
  if (found === undefined) return { kind: 'noSchema' };
  const walk = new Walk(limits, rules, found.statusSubresource);
  try {
    walk.node(obj, found.schema, '', 0, 'resource');
  } catch (e) {
    if (e instanceof Refusal) return { kind: 'invalid', crd: found.crd, path: e.path, message: e.message };
    if (e !== exhausted) throw e;
    walk.skip(`the rest of the object: more than ${limits.maxSteps} steps or ${limits.maxMs} ms`);
  }
  return { kind: 'valid', skipped: [...walk.skipped] };
}

class Refusal extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}
const exhausted = new Error('validation budget exhausted');

/** A value as CEL sees it, and whether it is exactly what the server's CEL would see. */
interface Seen {
  readonly cel: unknown;
  /** False when a format the server types (date-time, duration, byte) or a pruned part may differ. */
  readonly exact: boolean;
  /** A list-type set or map below: the server compares those lists ignoring order. */
  readonly unordered: boolean;
}
const inexact: Seen = { cel: undefined, exact: false, unordered: false };

/** Where a node sits: the root of a resource (its own or an embedded one) has apiVersion, kind, metadata. */
type Place = 'resource' | 'field';

/** String formats the server's CEL reads as another type (bytes, timestamp, duration). */
const typedFormats = new Set(['byte', 'date', 'date-time', 'duration']);
const maxSkipNotes = 8;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (s: SchemaNode, k: string): number | undefined =>
  typeof s[k] === 'number' && Number.isFinite(s[k]) ? s[k] : undefined;
const child = (s: unknown): SchemaNode | undefined => (isRecord(s) ? s : undefined);
const join = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? path === ''
      ? key
      : `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
/** An enum member or a number as the message shows it; a string value of the object is never shown. */
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

class Walk {
  readonly skipped = new Set<string>();
  readonly #limits: Limits;
  readonly #rules: RuleCache;
  readonly #budget: ObjectBudget;
  readonly #dropStatus: boolean;
  readonly #cpuStart = cpuMs();
  #steps = 0;

  constructor(limits: Limits, rules: RuleCache, dropStatus: boolean) {
    this.#limits = limits;
    this.#rules = rules;
    this.#dropStatus = dropStatus;
    this.#budget = new ObjectBudget(limits.cel);
  }

  skip(note: string): void {
    if (this.skipped.size < maxSkipNotes) this.skipped.add(note);
  }

  /** Charges `n` steps; the CPU clock is read every 4,096. */
  #step(n = 1): void {
    const before = this.#steps;
    this.#steps += n;
    if (this.#steps > this.#limits.maxSteps) throw exhausted;
    if (before >>> 12 !== this.#steps >>> 12) this.#clock();
  }

  /** Ends the walk when the object's CPU time is spent. */
  #clock(): void {
    if (cpuMs() - this.#cpuStart > this.#limits.maxMs) throw exhausted;
  }

  node(value: unknown, s: SchemaNode, path: string, depth: number, place: Place): Seen {
    this.#step();
    if (depth > this.#limits.maxDepth) {
      this.skip(`${path}: schema nested deeper than ${this.#limits.maxDepth}`);
      return inexact;
    }
    if (value === null) {
      if (s.nullable === true) return { cel: null, exact: true, unordered: false };
      // A null where the schema has none is pruned (or defaulted) by the server, or refused: not decided here.
      this.skip(`${path}: null where the schema does not allow it`);
      return inexact;
    }
    const seen = this.#typed(value, s, path, depth, place);
    this.#enum(value, s, path);
    this.#rulesOn(seen, s, path);
    return seen;
  }

  #typed(value: unknown, s: SchemaNode, path: string, depth: number, place: Place): Seen {
    if (s['x-kubernetes-int-or-string'] === true) {
      if (typeof value === 'string') return this.#string(value, s, path);
      if (typeof value === 'number' && Number.isInteger(value))
        return this.#number(value, s, path, 'integer');
      throw new Refusal(path, `must be an integer or a string, not ${typeName(value)}`);
    }
    const type = s.type;
    switch (type) {
      case 'string':
        if (typeof value !== 'string') throw mistyped(path, type, value);
        return this.#string(value, s, path);
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value)) throw mistyped(path, type, value);
        return this.#number(value, s, path, type);
      case 'number':
        if (typeof value !== 'number') throw mistyped(path, type, value);
        return this.#number(value, s, path, type);
      case 'boolean':
        if (typeof value !== 'boolean') throw mistyped(path, type, value);
        return { cel: value, exact: true, unordered: false };
      case 'array':
        if (!Array.isArray(value)) throw mistyped(path, type, value);
        return this.#array(value, s, path, depth);
      case 'object':
        if (!isRecord(value)) throw mistyped(path, type, value);
        return this.#object(value, s, path, depth, place);
      default:
        // No type: x-kubernetes-preserve-unknown-fields alone (anything goes), or a schema the server refuses.
        return s['x-kubernetes-preserve-unknown-fields'] === true ? this.#unknown(value, depth) : inexact;
    }
  }

  #string(value: string, s: SchemaNode, path: string): Seen {
    if (s.maxLength !== undefined || s.minLength !== undefined) {
      this.#step(value.length >>> 6);
      counted(s, 'Length', codePoints(value), path, 'characters');
    }
    if (typeof s.pattern === 'string') {
      this.#step(value.length >>> 6);
      // Compiling is the costly part: the clock is read before each pattern not compiled yet.
      if (!patternCompiled(s.pattern)) this.#clock();
      const ok = matchesPattern(s.pattern, value);
      if (ok === false) throw new Refusal(path, `must match the pattern ${JSON.stringify(s.pattern)}`);
      if (ok === undefined) this.skip(`${path}: the pattern ${JSON.stringify(s.pattern)}`);
    }
    const exact = !(typeof s.format === 'string' && typedFormats.has(s.format));
    return { cel: value, exact, unordered: false };
  }

  #number(value: number, s: SchemaNode, path: string, type: 'integer' | 'number'): Seen {
    const max = num(s, 'maximum');
    const min = num(s, 'minimum');
    if (max !== undefined && (s.exclusiveMaximum === true ? value >= max : value > max))
      throw new Refusal(
        path,
        `must be ${s.exclusiveMaximum === true ? 'less than' : 'at most'} ${max}, is ${value}`,
      );
    if (min !== undefined && (s.exclusiveMinimum === true ? value <= min : value < min))
      throw new Refusal(
        path,
        `must be ${s.exclusiveMinimum === true ? 'more than' : 'at least'} ${min}, is ${value}`,
      );
    if (type === 'number') return { cel: value, exact: true, unordered: false };
    return Number.isSafeInteger(value) ? { cel: BigInt(value), exact: true, unordered: false } : inexact;
  }

  #array(value: readonly unknown[], s: SchemaNode, path: string, depth: number): Seen {
    counted(s, 'Items', value.length, path, 'items');
    const items = child(s.items);
    if (items === undefined) return this.#unknown(value, depth);
    const listType = s['x-kubernetes-list-type'];
    let exact = true;
    let unordered = listType === 'set' || listType === 'map';
    const cel = value.map((v, i) => {
      const seen = this.node(v, items, `${path}[${i}]`, depth + 1, 'field');
      exact &&= seen.exact;
      unordered ||= seen.unordered;
      return seen.cel;
    });
    return { cel, exact, unordered };
  }

  #object(value: Record<string, unknown>, s: SchemaNode, path: string, depth: number, place: Place): Seen {
    const props = child(s.properties);
    const additional = child(s.additionalProperties);
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const resource = place === 'resource' || s['x-kubernetes-embedded-resource'] === true;
    const cel = new Map<string, unknown>();
    let exact = true;
    let unordered = false;
    const take = (key: string, seen: Seen) => {
      exact &&= seen.exact;
      unordered ||= seen.unordered;
      cel.set(key, seen.cel);
    };
    if (resource) {
      // apiVersion, kind and metadata are the server's to check; the rules see metadata's name and generateName.
      if (place === 'field') {
        for (const k of ['apiVersion', 'kind'])
          if (typeof value[k] !== 'string' || value[k] === '')
            throw new Refusal(join(path, k), 'must not be empty (an embedded resource)');
      }
      for (const k of ['apiVersion', 'kind']) if (typeof value[k] === 'string') cel.set(k, value[k]);
      const meta = isRecord(value.metadata) ? value.metadata : {};
      const m = new Map<string, unknown>();
      for (const k of ['name', 'generateName']) if (typeof meta[k] === 'string') m.set(k, meta[k]);
      cel.set('metadata', m);
    }
    // With the status subresource a create drops status: the rules of the root do not see it.
    const dropped = place === 'resource' && this.#dropStatus ? 'status' : undefined;
    for (const key of Object.keys(value)) {
      if (resource && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      if (key === dropped) continue;
      const v = value[key];
      if (v === undefined) continue;
      const schema = props !== undefined && Object.hasOwn(props, key) ? child(props[key]) : additional;
      if (schema === undefined) {
        // Not in the schema: kept as it is under x-kubernetes-preserve-unknown-fields, else pruned.
        if (preserve) take(key, this.#unknown(v, depth + 1));
        continue;
      }
      if (v === null && schema.nullable !== true) {
        // The server prunes it (then defaults it): it reads as absent, or as its default.
        if (schema.default !== undefined)
          take(key, this.node(schema.default, schema, join(path, key), depth + 1, 'field'));
        continue;
      }
      take(key, this.node(v, schema, join(path, key), depth + 1, 'field'));
    }
    if (props !== undefined) {
      for (const key of Object.keys(props)) {
        const schema = child(props[key]);
        if (cel.has(key) || key === dropped || schema?.default === undefined) continue;
        take(key, this.node(schema.default, schema, join(path, key), depth + 1, 'field'));
      }
    }
    if (Array.isArray(s.required)) {
      for (const key of s.required as unknown[]) {
        if (typeof key !== 'string' || cel.has(key) || key === dropped) continue;
        throw new Refusal(join(path, key), 'Required value');
      }
    }
    if (!resource) counted(s, 'Properties', cel.size, path, 'properties');
    return { cel, exact, unordered };
  }

  /** A value no schema describes (x-kubernetes-preserve-unknown-fields), as the server's CEL reads JSON. */
  #unknown(value: unknown, depth: number): Seen {
    this.#step();
    if (depth > this.#limits.maxDepth) return inexact;
    if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) return { cel: BigInt(value), exact: true, unordered: false };
      return Number.isInteger(value) ? inexact : { cel: value, exact: true, unordered: false };
    }
    if (value === null || typeof value === 'string' || typeof value === 'boolean')
      return { cel: value, exact: true, unordered: false };
    if (Array.isArray(value)) {
      let exact = true;
      const cel = value.map((v) => {
        const seen = this.#unknown(v, depth + 1);
        exact &&= seen.exact;
        return seen.cel;
      });
      return { cel, exact, unordered: false };
    }
    if (!isRecord(value)) return inexact;
    let exact = true;
    const cel = new Map<string, unknown>();
    for (const key of Object.keys(value)) {
      if (value[key] === undefined) continue;
      const seen = this.#unknown(value[key], depth + 1);
      exact &&= seen.exact;
      cel.set(key, seen.cel);
    }
    return { cel, exact, unordered: false };
  }

  /** enum, for strings, numbers and booleans (the server's own comparison of objects is left to it). */
  #enum(value: unknown, s: SchemaNode, path: string): void {
    if (!Array.isArray(s.enum) || (typeof value === 'object' && value !== null)) return;
    const members = s.enum as unknown[];
    this.#step(members.length);
    if (!members.includes(value)) {
      const shown = members.slice(0, 5).map(show).join(', ') + (members.length > 5 ? ', …' : '');
      const is = typeof value === 'string' ? 'another string' : show(value);
      throw new Refusal(path, `must be one of ${shown}; is ${is}`);
    }
  }

  #rulesOn(seen: Seen, s: SchemaNode, path: string): void {
    const rules = rulesOf(s);
    for (const r of rules) {
      this.#step();
      let c = this.#rules.get(r.rule);
      if (c === undefined) {
        // Compiling is the costly part (up to tens of ms a rule): the clock is read before each.
        this.#clock();
        c = compileRule(r);
        this.#rules.set(r.rule, c);
      }
      const where = path === '' ? '<root>' : path;
      if (c.kind === 'skipped') {
        this.skip(`${where}: rule ${quoted(c.rule)}: ${c.why}`);
        continue;
      }
      if (!seen.exact) {
        this.skip(`${where}: rule ${quoted(r.rule)}: the value holds a part the server types otherwise`);
        continue;
      }
      if (seen.unordered && /==|!=|\bin\b/.test(r.rule)) {
        this.skip(`${where}: rule ${quoted(r.rule)}: compares a list the server compares unordered`);
        continue;
      }
      const out = c.expr.run(seen.cel, this.#budget);
      if (out.ok && out.value === false) throw new Refusal(path + r.fieldPath, r.message);
      if (!out.ok || out.value !== true) {
        // An error here may be this environment's, not the rule's: the server's evaluation decides.
        this.skip(`${where}: rule ${quoted(r.rule)}: ${out.ok ? 'not a bool' : out.message}`);
        if (out.ok === false && out.exhausted !== undefined) throw exhausted;
      }
    }
  }
}

/** A rule as a skip note shows it: its start, quoted. */
function quoted(rule: string): string {
  return JSON.stringify(rule.length > 80 ? `${rule.slice(0, 77)}…` : rule);
}

/** minLength/maxLength, minItems/maxItems, minProperties/maxProperties of a count `n`. */
function counted(
  s: SchemaNode,
  of: 'Length' | 'Items' | 'Properties',
  n: number,
  path: string,
  noun: string,
): void {
  const max = num(s, `max${of}`);
  const min = num(s, `min${of}`);
  if (max !== undefined && n > max) throw new Refusal(path, `may have at most ${max} ${noun}, has ${n}`);
  if (min !== undefined && n < min) throw new Refusal(path, `must have at least ${min} ${noun}, has ${n}`);
}

function mistyped(path: string, type: string, value: unknown): Refusal {
  return new Refusal(path, `must be of type ${type}, not ${typeName(value)}`);
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Characters as the server counts them for maxLength: code points, not UTF-16 units. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function cpuMs(): number {
  const t = process.threadCpuUsage();
  return (t.user + t.system) / 1000;
}
