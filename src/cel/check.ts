// The static checks of a CEL expression (a health rule's, a verification condition's), done before it is
// planned (docs/design.md#health-loop):
// size and nesting limits, undeclared identifiers and unknown functions (which the library reports only
// when evaluated), operators and functions applied to operands whose types are certain and that no
// overload takes ('a' * 1: found when the rule is compiled, not per object), and the result type where it
// can be inferred. Anything read from the declared variable is dyn (its shape is not declared): never
// refused here.
// Pure, over the parsed expression tree.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** Why: an expression is user input; these keep one from stalling the observer. */
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

export function withPos(p: Position | undefined): { position?: Position } {
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

type Comprehension = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];
type Problem = { message: string; position?: Position };

/** A comprehension's parts, each with the scope it is evaluated in: outside, in the loop, in the result. */
function scoped<S>(c: Comprehension, outer: S, loop: S, result: S): (readonly [Expr | undefined, S])[] {
  return [
    [c.iterRange, outer],
    [c.accuInit, outer],
    [c.loopCondition, loop],
    [c.loopStep, loop],
    [c.result, result],
  ];
}

function firstProblem<S>(
  parts: readonly (readonly [Expr | undefined, S])[],
  walk: (e: Expr, scope: S) => Problem | undefined,
): Problem | undefined {
  for (const [x, scope] of parts) {
    const p = x ? walk(x, scope) : undefined;
    if (p) return p;
  }
  return undefined;
}

/** Undeclared identifiers and unknown functions, which the library would only report when evaluated. */
export function staticCheck(
  root: Expr,
  posOf: (id: bigint) => Position | undefined,
  declared: { readonly variable: string; readonly what: string },
  knownFunction: (name: string) => boolean,
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
      if (n !== declared.variable && !scope.has(n) && !typeIdents.has(n)) {
        return {
          message: `undeclared reference to '${n}' (${declared.what} is bound to '${declared.variable}')`,
          ...withPos(posOf(e.id)),
        };
      }
      return undefined;
    }
    if (k.case === 'callExpr') {
      const f = k.value.function;
      if (/^[A-Za-z]/.test(f) && !knownFunction(f)) {
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
      return firstProblem(scoped(c, scope, inner, withAccu), walk);
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
export function treeShape(root: Expr): { nodes: number; depth: number } {
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

export function comprehensionDepth(e: Expr): number {
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

/** Static type of an expression where it is certain; 'dyn' otherwise (anything read from the variable). */
export function infer(e: Expr, accu: ReadonlyMap<string, Inferred>): Inferred {
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

const NUMERIC: ReadonlySet<Inferred> = new Set(['int', 'uint', 'double']);
const SAME_TYPE: Readonly<Record<string, ReadonlySet<Inferred>>> = {
  '_+_': new Set(['int', 'uint', 'double', 'string', 'bytes', 'list']),
  '_-_': NUMERIC,
  '_*_': NUMERIC,
  '_/_': NUMERIC,
  '_%_': new Set(['int', 'uint']),
};
const ORDERING = new Set(['_<_', '_<=_', '_>_', '_>=_']);
const ORDERED: ReadonlySet<Inferred> = new Set(['string', 'bytes', 'bool']);
const SIZED: ReadonlySet<Inferred> = new Set(['string', 'bytes', 'list', 'map']);

/** Whether an overload of `f` takes operands of these certain types (true when one is dyn). */
function overloadExists(f: string, args: readonly Inferred[]): boolean {
  if (args.includes('dyn')) return true;
  const [a, b] = args;
  const same = SAME_TYPE[f];
  if (same !== undefined) return args.length === 2 && a === b && a !== undefined && same.has(a);
  if (ORDERING.has(f)) {
    if (a === undefined || b === undefined) return false;
    return (NUMERIC.has(a) && NUMERIC.has(b)) || (a === b && ORDERED.has(a));
  }
  switch (f) {
    case '-_':
      return a === 'int' || a === 'double';
    case '!_':
    case '_&&_':
    case '_||_':
      return args.every((x) => x === 'bool');
    case '_?_:_':
      return a === 'bool';
    case 'size':
      return a !== undefined && SIZED.has(a);
    case '@in':
      return b === 'list' || b === 'map';
    default:
      return true;
  }
}

/**
 * The first call whose operands have certain types no overload takes, as the library words it when
 * evaluating ("found no matching overload for '_*_' applied to '(string, int)'"). Iteration variables
 * are dyn; the accumulators of macros have the type of their start value.
 */
export function typeCheck(
  root: Expr,
  posOf: (id: bigint) => Position | undefined,
): { message: string; position?: Position } | undefined {
  const walk = (
    e: Expr,
    accu: ReadonlyMap<string, Inferred>,
  ): { message: string; position?: Position } | undefined => {
    const k = e.exprKind;
    if (k.case === 'comprehensionExpr') {
      const c = k.value;
      const inner = new Map(accu);
      inner.set(c.iterVar, 'dyn');
      if (c.iterVar2) inner.set(c.iterVar2, 'dyn');
      if (c.accuInit) inner.set(c.accuVar, infer(c.accuInit, accu));
      const withAccu = new Map(accu);
      if (c.accuInit) withAccu.set(c.accuVar, infer(c.accuInit, accu));
      return firstProblem(scoped(c, accu, inner, withAccu), walk);
    }
    for (const c of children(e)) {
      const p = walk(c, accu);
      if (p) return p;
    }
    if (k.case !== 'callExpr') return undefined;
    const f = k.value.function;
    const operands = [...(k.value.target ? [k.value.target] : []), ...k.value.args];
    const types = operands.map((x) => infer(x, accu));
    if (overloadExists(f, types)) return undefined;
    const shown = types.map((t) => (t === 'null' ? 'null_type' : t)).join(', ');
    const name = f === '_?_:_' ? f : `'${f}'`;
    return {
      message: `found no matching overload for ${name} applied to '(${shown})'`,
      ...withPos(posOf(e.id)),
    };
  };
  return walk(root, new Map());
}
