// Thin wrapper over @bufbuild/cel for health rules: compiles one expression with the checks the
// library does not do itself (undeclared variables, unknown functions, result type where it can
// be inferred, size and nesting limits), maps error ids back to line/column, and runs every
// evaluation under a budget (./cel-budget.ts).
import { CelScalar, type CelValue, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { errorMessage } from '../../lib/errors.ts';
import {
  costFunc,
  type Exhausted,
  meterComprehensions,
  metered,
  ObjectBudget,
  replaceFuncs,
} from './cel-budget.ts';

export type ResultType = 'bool' | 'string';

/** Why: a rule is user input; these keep one rule from stalling the observer. */
export const limits = {
  maxSourceChars: 16 * 1024,
  /** All healthy and message expressions of one rule set together (parsing costs ~10-30 µs a character). */
  maxRuleSetSourceChars: 256 * 1024,
  maxNodes: 5000,
  maxComprehensionDepth: 3,
  /** Nesting of the expression tree (brackets, calls, operators); deeper trees are refused before planning. */
  maxDepth: 100,
} as const;

export interface Position {
  readonly line: number;
  readonly column: number;
}

export type CompileOutcome =
  | { readonly ok: true; readonly expr: CompiledExpr }
  | { readonly ok: false; readonly message: string; readonly position?: Position };

export type EvalOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly message: string;
      readonly position?: Position;
      /** Set when the evaluation was stopped (or not started: ran false) because its budget ran out. */
      readonly exhausted?: { readonly how: Exhausted; readonly ran: boolean };
    };

export interface CompiledExpr {
  readonly source: string;
  readonly comprehensionDepth: number;
  /** Evaluates under `budget` (default: a fresh one with the default limits). */
  run(object: unknown, budget?: ObjectBudget): EvalOutcome<CelValue>;
}

// Every function of the library and of the strings extension, replaced by one that charges the budget
// (same ids, so the resolver keeps the last: the metered one), a linear `replace`, and the
// per-iteration charge of macros.
const env = celEnv({
  variables: { object: CelScalar.DYN },
  funcs: [...[...celEnv({ funcs: strings }).funcs, ...replaceFuncs].map(metered), costFunc],
});

const typeIdents = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

const boolFuncs = new Set([
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '!_',
  '_&&_',
  '_||_',
  '@in',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'bool',
]);
const stringFuncs = new Set([
  'string',
  'lowerAscii',
  'upperAscii',
  'replace',
  'trim',
  'substring',
  'charAt',
  'join',
  'format',
  'strings.quote',
]);
const intFuncs = new Set(['size', 'int', 'indexOf', 'lastIndexOf']);

type Inferred = 'bool' | 'string' | 'int' | 'uint' | 'double' | 'bytes' | 'null' | 'list' | 'map' | 'dyn';

export function positionAt(source: string, offset: number): Position {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

export function formatPosition(p: Position | undefined): string {
  return p === undefined ? '' : `line ${p.line}, column ${p.column}`;
}

export function compileExpr(source: string, want: ResultType): CompileOutcome {
  if (source.length > limits.maxSourceChars) {
    return { ok: false, message: `expression is longer than ${limits.maxSourceChars} characters` };
  }
  // The parser recurses per bracket: refuse deep nesting before it can overflow the stack.
  const brackets = bracketDepth(source);
  if (brackets > limits.maxDepth) {
    return { ok: false, message: `brackets nested ${brackets} deep; the limit is ${limits.maxDepth}` };
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    const err = e as { rawMessage?: string; message?: string; location?: { start?: Position } };
    const start = err.location?.start;
    return {
      ok: false,
      message: err.rawMessage ?? err.message ?? String(e),
      ...(start ? { position: { line: start.line, column: start.column } } : {}),
    };
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const posOf = (id: bigint | undefined): Position | undefined => {
    if (id === undefined) return undefined;
    const off = (positions as Record<string, number>)[String(id)];
    return off === undefined ? undefined : positionAt(source, off);
  };

  if (parsed.expr === undefined) return { ok: false, message: 'empty expression' };
  // Checked without recursion, so the recursive passes below (and the evaluator's) stay shallow.
  const shape = treeShape(parsed.expr);
  if (shape.nodes > limits.maxNodes) {
    return { ok: false, message: `expression has more than ${limits.maxNodes} nodes` };
  }
  if (shape.depth > limits.maxDepth) {
    return {
      ok: false,
      message: `expression nested ${shape.depth} deep (operators, calls, brackets); the limit is ${limits.maxDepth}`,
    };
  }
  const problem = staticCheck(parsed.expr, posOf);
  if (problem) return { ok: false, ...problem };
  const depth = comprehensionDepth(parsed.expr);
  if (depth > limits.maxComprehensionDepth) {
    return {
      ok: false,
      message: `macros (all, exists, map, filter, …) nested ${depth} deep; the limit is ${limits.maxComprehensionDepth}`,
    };
  }
  const inferred = infer(parsed.expr, new Map());
  if (inferred !== 'dyn' && inferred !== want) {
    return {
      ok: false,
      message: `expression has type ${inferred}, want ${want}`,
      ...withPos(posOf(parsed.expr.id)),
    };
  }
  let fn: ReturnType<typeof plan<{ object: typeof CelScalar.DYN }>>;
  try {
    meterComprehensions(parsed.expr);
    fn = plan(env, parsed);
  } catch (e) {
    return { ok: false, message: errorMessage(e) };
  }
  return {
    ok: true,
    expr: {
      source,
      comprehensionDepth: depth,
      run(object: unknown, budget = new ObjectBudget()): EvalOutcome<CelValue> {
        let out: ReturnType<typeof budget.run<ReturnType<typeof fn>>>;
        try {
          out = budget.run(() => fn({ object: object as Map<string, never> }));
        } catch (e) {
          return { ok: false, message: errorMessage(e) };
        }
        // Checked first: the library turns a throw into an error value, which must not read as the rule's own.
        if (out.exhausted) {
          return { ok: false, message: 'budget exceeded', exhausted: { how: out.exhausted, ran: out.ran } };
        }
        const r = out.value;
        if (r === undefined) return { ok: false, message: 'no result' };
        if (isCelError(r)) return { ok: false, message: r.message, ...withPos(posOf(r.exprId)) };
        return { ok: true, value: r };
      },
    },
  };
}

function withPos(p: Position | undefined): { position?: Position } {
  return p === undefined ? {} : { position: p };
}

function children(e: Expr): Expr[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return k.value.operand ? [k.value.operand] : [];
    case 'callExpr':
      return [...(k.value.target ? [k.value.target] : []), ...k.value.args];
    case 'listExpr':
      return k.value.elements;
    case 'structExpr':
      return k.value.entries.flatMap((en) => [
        ...(en.keyKind.case === 'mapKey' ? [en.keyKind.value] : []),
        ...(en.value ? [en.value] : []),
      ]);
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x) => x !== undefined);
    }
    default:
      return [];
  }
}

/** Undeclared identifiers and unknown functions, which the library would only report when evaluated. */
function staticCheck(
  root: Expr,
  posOf: (id: bigint) => Position | undefined,
): { message: string; position?: Position } | undefined {
  let nodes = 0;
  const walk = (
    e: Expr,
    scope: ReadonlySet<string>,
  ): { message: string; position?: Position } | undefined => {
    if (++nodes > limits.maxNodes) return { message: `expression has more than ${limits.maxNodes} nodes` };
    const k = e.exprKind;
    if (k.case === 'identExpr') {
      const n = k.value.name;
      if (n !== 'object' && !scope.has(n) && !typeIdents.has(n)) {
        return {
          message: `undeclared reference to '${n}' (the object is bound to 'object')`,
          ...withPos(posOf(e.id)),
        };
      }
      return undefined;
    }
    if (k.case === 'callExpr') {
      const f = k.value.function;
      if (/^[A-Za-z]/.test(f) && env.funcs.find(f) === undefined) {
        return { message: `unknown function '${f}'`, ...withPos(posOf(e.id)) };
      }
    }
    if (k.case === 'comprehensionExpr') {
      const c = k.value;
      const inner = new Set(scope);
      inner.add(c.iterVar);
      if (c.iterVar2) inner.add(c.iterVar2);
      inner.add(c.accuVar);
      const withAccu = new Set(scope);
      withAccu.add(c.accuVar);
      for (const [x, s] of [
        [c.iterRange, scope],
        [c.accuInit, scope],
        [c.loopCondition, inner],
        [c.loopStep, inner],
        [c.result, withAccu],
      ] as const) {
        const p = x ? walk(x, s) : undefined;
        if (p) return p;
      }
      return undefined;
    }
    for (const c of children(e)) {
      const p = walk(c, scope);
      if (p) return p;
    }
    return undefined;
  };
  return walk(root, new Set());
}

/** Node count (stopping past the limit) and depth of the tree, with an explicit stack. */
function treeShape(root: Expr): { nodes: number; depth: number } {
  const stack: [Expr, number][] = [[root, 1]];
  let nodes = 0;
  let depth = 0;
  for (let top = stack.pop(); top !== undefined && nodes <= limits.maxNodes; top = stack.pop()) {
    const [e, d] = top;
    nodes++;
    if (d > depth) depth = d;
    for (const c of children(e)) stack.push([c, d + 1]);
  }
  return { nodes, depth };
}

/** Deepest nesting of ( [ { outside string literals (quotes, triple quotes, raw strings). */
export function bracketDepth(src: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'") {
      const raw = i > 0 && (src[i - 1] === 'r' || src[i - 1] === 'R');
      const quote = src.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < src.length && !src.startsWith(quote, j)) j += !raw && src[j] === '\\' ? 2 : 1;
      i = j + quote.length - 1;
    } else if (c === '(' || c === '[' || c === '{') {
      if (++depth > max) max = depth;
    } else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max;
}

function comprehensionDepth(e: Expr): number {
  const k = e.exprKind;
  if (k.case === 'comprehensionExpr') {
    const c = k.value;
    const body = [c.loopCondition, c.loopStep, c.result]
      .filter((x) => x !== undefined)
      .map(comprehensionDepth);
    const outer = [c.iterRange, c.accuInit].filter((x) => x !== undefined).map(comprehensionDepth);
    return Math.max(1 + Math.max(0, ...body), ...outer);
  }
  return Math.max(0, ...children(e).map(comprehensionDepth));
}

/** Static type of an expression where it is certain; 'dyn' otherwise (anything read from object). */
function infer(e: Expr, accu: ReadonlyMap<string, Inferred>): Inferred {
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      switch (k.value.constantKind.case) {
        case 'boolValue':
          return 'bool';
        case 'stringValue':
          return 'string';
        case 'int64Value':
          return 'int';
        case 'uint64Value':
          return 'uint';
        case 'doubleValue':
          return 'double';
        case 'bytesValue':
          return 'bytes';
        case 'nullValue':
          return 'null';
        default:
          return 'dyn';
      }
    case 'listExpr':
      return 'list';
    case 'structExpr':
      return 'map';
    case 'selectExpr':
      return k.value.testOnly ? 'bool' : 'dyn';
    case 'identExpr':
      return accu.get(k.value.name) ?? 'dyn';
    case 'comprehensionExpr': {
      const c = k.value;
      if (!c.result || !c.accuInit) return 'dyn';
      const inner = new Map(accu);
      inner.set(c.accuVar, infer(c.accuInit, accu));
      return infer(c.result, inner);
    }
    case 'callExpr': {
      const f = k.value.function;
      if (boolFuncs.has(f)) return 'bool';
      if (stringFuncs.has(f)) return 'string';
      if (intFuncs.has(f)) return 'int';
      if (f === 'double') return 'double';
      const args = k.value.args.map((a) => infer(a, accu));
      if (f === '_?_:_') return args[1] === args[2] && args[1] !== undefined ? args[1] : 'dyn';
      if (f === '_+_') {
        if (args.includes('string')) return 'string';
        if (args.includes('list')) return 'list';
      }
      return 'dyn';
    }
    default:
      return 'dyn';
  }
}
