// Thin wrapper over @bufbuild/cel for the project's bounded CEL (health rules, verification conditions):
// compiles one expression over one declared variable with the checks the library does not do itself
// (undeclared variables, unknown functions, operands of certain types no overload takes, result type
// where it can be inferred, size and nesting limits), maps error ids back to line/column, and runs every
// evaluation under a budget (./budget.ts).
import { type CelFunc, CelScalar, type CelValue, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { errorMessage } from '../lib/errors.ts';
import { type Exhausted, metered, ObjectBudget } from './budget.ts';
import {
  bracketDepth,
  comprehensionDepth,
  infer,
  limits,
  type Position,
  staticCheck,
  treeShape,
  typeCheck,
  withPos,
} from './check.ts';
import { costFunc, meterComprehensions, replaceFuncs } from './metering.ts';

export type ResultType = 'bool' | 'string';

/** What an expression may read: the caller's part of the language (health rules: `object`). */
export interface CelDeclaration {
  /** The one variable an expression reads; its value is dyn (its shape is not declared). */
  readonly variable: string;
  /** What the variable holds, for "undeclared reference" errors ("the object"). */
  readonly what: string;
  /** Functions beyond the standard library and the strings extension; metered like them. */
  readonly funcs?: readonly CelFunc[];
  /** Rewrites the parsed tree before it is checked (e.g. int literals read as double). */
  readonly rewrite?: (root: Expr) => void;
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
  run(value: unknown, budget?: ObjectBudget): EvalOutcome<CelValue>;
}

// Every function of the library and of the strings extension, replaced by one that charges the budget
// (same ids, so the resolver keeps the last: the metered one), a linear `replace`, and the
// per-iteration charge of macros. One environment per declaration.
const standardFuncs: readonly CelFunc[] = [...celEnv({ funcs: strings }).funcs, ...replaceFuncs];
const envs = new WeakMap<CelDeclaration, ReturnType<typeof celEnv>>();
function envOf(d: CelDeclaration): ReturnType<typeof celEnv> {
  let env = envs.get(d);
  if (env === undefined) {
    env = celEnv({
      variables: { [d.variable]: CelScalar.DYN },
      funcs: [...[...standardFuncs, ...(d.funcs ?? [])].map(metered), costFunc],
    });
    envs.set(d, env);
  }
  return env;
}

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

export function compileExpr(source: string, want: ResultType, declaration: CelDeclaration): CompileOutcome {
  const env = envOf(declaration);
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
  declaration.rewrite?.(parsed.expr);
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
  const problem = staticCheck(parsed.expr, posOf, declaration, (f) => env.funcs.find(f) !== undefined);
  if (problem) return { ok: false, ...problem };
  const depth = comprehensionDepth(parsed.expr);
  if (depth > limits.maxComprehensionDepth) {
    return {
      ok: false,
      message: `macros (all, exists, map, filter, …) nested ${depth} deep; the limit is ${limits.maxComprehensionDepth}`,
    };
  }
  const mistyped = typeCheck(parsed.expr, posOf);
  if (mistyped) return { ok: false, ...mistyped };
  const inferred = infer(parsed.expr, new Map());
  if (inferred !== 'dyn' && inferred !== want) {
    return {
      ok: false,
      message: `expression has type ${inferred}, want ${want}`,
      ...withPos(posOf(parsed.expr.id)),
    };
  }
  let fn: ReturnType<typeof plan<Record<string, typeof CelScalar.DYN>>>;
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
      run(value: unknown, budget = new ObjectBudget()): EvalOutcome<CelValue> {
        let out: ReturnType<typeof budget.run<ReturnType<typeof fn>>>;
        try {
          out = budget.run(() => fn({ [declaration.variable]: value as Map<string, never> }));
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
