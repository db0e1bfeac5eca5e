// The CEL functions and AST rewrites that charge the budget of ./budget.ts (docs/design.md#assessment):
// a linear-time `replace` charged for the string it can grow to, the cost function the comprehension
// rewrite calls, and that rewrite itself, so every macro iteration is metered.
import { type CelFunc, CelScalar, celFunc, celMethod } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { charge } from './budget.ts';

/**
 * `replace` in linear time. The library's rebuilds the whole string for each occurrence (quadratic: a
 * 100,000-character string of matches takes minutes). Semantics of the CEL strings extension: n < 0
 * or no n replaces all, an empty `from` matches before each code point and at the end.
 */
export function replaceStrings(s: string, from: string, to: string, n?: bigint): string {
  const limit = n === undefined || n < 0n ? Number.POSITIVE_INFINITY : Number(n);
  if (limit === 0) return s;
  const parts: string[] = [];
  if (from === '') {
    let done = 0;
    for (const cp of s) {
      if (done < limit) {
        parts.push(to);
        done++;
      }
      parts.push(cp);
    }
    if (done < limit) parts.push(to);
    return parts.join('');
  }
  let i = 0;
  for (let done = 0; done < limit; done++) {
    const j = s.indexOf(from, i);
    if (j < 0) break;
    parts.push(s.slice(i, j));
    i = j + from.length;
  }
  parts.push(s.slice(i));
  return parts.join(to);
}

export const replaceFuncs: readonly CelFunc[] = [
  celMethod(
    'replace',
    CelScalar.STRING,
    [CelScalar.STRING, CelScalar.STRING],
    CelScalar.STRING,
    function (f, t) {
      return replaceStrings(this, f, t);
    },
  ),
  celMethod(
    'replace',
    CelScalar.STRING,
    [CelScalar.STRING, CelScalar.STRING, CelScalar.INT],
    CelScalar.STRING,
    function (f, t, n) {
      return replaceStrings(this, f, t, n);
    },
  ),
];

/** The function a macro's loop condition calls each iteration, with the cost of one iteration. */
export const costFunction = '@convoy_cost';
export const costFunc: CelFunc = (() => {
  const f = celFunc(costFunction, [CelScalar.INT], CelScalar.BOOL, () => true);
  const wrapper = Object.create(f) as CelFunc;
  Object.defineProperty(wrapper, 'call', {
    value(_id: number, _target: unknown, args: unknown[]) {
      charge(Number(args[0]));
      return true;
    },
  });
  return wrapper;
})();

/**
 * Rewrites every macro (comprehension) so each iteration first charges the nodes its loop condition
 * and step evaluate: `cond` becomes `@convoy_cost(n) && cond`. `&&` evaluates left to right and
 * `true && x` is x, so the macro's meaning is unchanged; the charge comes before `cond`, so an
 * iteration whose step errors is charged too.
 */
export function meterComprehensions(e: Expr): void {
  const k = e.exprKind;
  switch (k.case) {
    case 'comprehensionExpr': {
      const c = k.value;
      for (const x of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) {
        if (x) meterComprehensions(x);
      }
      if (c.loopCondition) {
        const n = Math.max(1, countNodes(c.loopCondition) + (c.loopStep ? countNodes(c.loopStep) : 0));
        c.loopCondition = call('_&&_', [call(costFunction, [intConst(n)]), c.loopCondition]);
      }
      return;
    }
    case 'selectExpr':
      if (k.value.operand) meterComprehensions(k.value.operand);
      return;
    case 'callExpr':
      if (k.value.target) meterComprehensions(k.value.target);
      for (const a of k.value.args) meterComprehensions(a);
      return;
    case 'listExpr':
      for (const a of k.value.elements) meterComprehensions(a);
      return;
    case 'structExpr':
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') meterComprehensions(en.keyKind.value);
        if (en.value) meterComprehensions(en.value);
      }
      return;
    default:
      return;
  }
}

function countNodes(e: Expr): number {
  const k = e.exprKind;
  switch (k.case) {
    case 'comprehensionExpr': {
      const c = k.value;
      let n = 1;
      for (const x of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) {
        if (x) n += countNodes(x);
      }
      return n;
    }
    case 'selectExpr':
      return 1 + (k.value.operand ? countNodes(k.value.operand) : 0);
    case 'callExpr': {
      let n = 1 + (k.value.target ? countNodes(k.value.target) : 0);
      for (const a of k.value.args) n += countNodes(a);
      return n;
    }
    case 'listExpr': {
      let n = 1;
      for (const a of k.value.elements) n += countNodes(a);
      return n;
    }
    case 'structExpr': {
      let n = 1;
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') n += countNodes(en.keyKind.value);
        if (en.value) n += countNodes(en.value);
      }
      return n;
    }
    default:
      return 1;
  }
}

// Nodes the rewrite adds; id 0 has no source position, so errors keep pointing at the user's nodes.
function call(fn: string, args: Expr[]): Expr {
  return {
    $typeName: 'cel.expr.Expr',
    id: 0n,
    exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } },
  } as Expr;
}

function intConst(n: number): Expr {
  return {
    $typeName: 'cel.expr.Expr',
    id: 0n,
    exprKind: {
      case: 'constExpr',
      value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value: BigInt(n) } },
    },
  } as Expr;
}
