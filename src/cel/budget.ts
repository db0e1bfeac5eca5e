// The runtime budget of a CEL evaluation: a cost meter that every function call and every macro
// iteration charges, checked against a cost limit and a CPU-time limit. Why in-process and not a
// worker thread: a rule is evaluated ~100,000 times a second on the common path, and a worker round
// trip (structured clone of the object) costs more than the evaluation itself; the meter costs a few
// percent (bench:health-rules prints both). The meter throws out of the evaluation when the budget is
// spent, so no CEL operator (`||`, `&&`, which absorb errors) can swallow it.
import { type CelFunc, isCelList, isCelMap } from '@bufbuild/cel';

export interface Budget {
  /** Cost units: 1 per function call, per expression node of a macro body per iteration, per list or
   * map element and per 10 characters of every argument and result of a function call. */
  readonly cost: number;
  /** Milliseconds of this thread's CPU time. Not wall time: on a loaded node the thread can wait for a
   * core longer than any budget while doing nothing, and an ordinary rule must not fail for that. */
  readonly ms: number;
}

/** This thread's CPU time in milliseconds. A system call, ~20× the cost of performance.now(): it is
 * read only when the wall clock says a budget may be spent (CPU time never runs ahead of wall time). */
function cpuMs(): number {
  const t = process.threadCpuUsage();
  return (t.user + t.system) / 1000;
}

/** An expression starting within this wall time of its object's first shares the object's CPU reading
 * instead of taking its own. */
const sampleAfterMs = 1;

/** One expression (a rule's healthy or message), and all the rules that judge one object together. */
export const defaultBudget: { readonly expression: Budget; readonly object: Budget } = {
  expression: { cost: 1_000_000, ms: 250 },
  object: { cost: 2_000_000, ms: 500 },
};

/** How the budget ran out; the evaluator turns it into "rule … exceeded its budget". */
export type Exhausted =
  | { readonly kind: 'cost'; readonly limit: number; readonly of: 'expression' | 'object' }
  | { readonly kind: 'time'; readonly ms: number; readonly of: 'expression' | 'object' };

export function describeExhausted(e: Exhausted): string {
  const what = e.of === 'expression' ? 'per evaluation' : "for all of the object's rules";
  return e.kind === 'cost'
    ? `more than ${e.limit.toLocaleString('en-US')} cost units ${what}`
    : `more than ${e.ms} ms ${what}`;
}

/** Thrown through the evaluation when the budget runs out; never leaves this module's callers. */
const spent = new Error('CEL budget exceeded');

// The running evaluation's meter. Evaluation is synchronous and not re-entrant, so one slot is enough.
interface Meter {
  used: number;
  limit: number;
  limitReported: number;
  limitOf: 'expression' | 'object';
  /** Wall time at which to read the CPU clock: the earliest moment a time budget can be spent. */
  deadline: number;
  /** The expression's and the object's CPU budgets: where they started and how much they hold. */
  readonly exprCpuStart: number;
  readonly exprMs: number;
  readonly object: ObjectBudget;
  nextClock: number;
  charges: number;
  exhausted: Exhausted | undefined;
}
let current: Meter | undefined;

// Reading the clock on every charge would cost more than the charge: it is read every 2,000 units
// and every 64 charges (one call can do more work than it is charged, e.g. `==` of nested lists).
const clockEvery = 2000;
const clockEveryCharges = 64;

export function charge(units: number): void {
  const m = current;
  if (m === undefined) return;
  m.used += units;
  if (m.used > m.limit) {
    m.exhausted = { kind: 'cost', limit: m.limitReported, of: m.limitOf };
    throw spent;
  }
  if (m.used >= m.nextClock || ++m.charges >= clockEveryCharges) {
    m.nextClock = m.used + clockEvery;
    m.charges = 0;
    const now = performance.now();
    if (now > m.deadline) {
      const cpu = cpuMs();
      const exprLeft = m.exprMs - (cpu - m.exprCpuStart);
      const objectLeft = m.object.cpuLeft(cpu);
      if (exprLeft <= 0 || objectLeft <= 0) {
        m.exhausted =
          exprLeft <= 0 && exprLeft <= objectLeft
            ? { kind: 'time', ms: m.exprMs, of: 'expression' }
            : { kind: 'time', ms: m.object.ms, of: 'object' };
        throw spent;
      }
      m.deadline = now + Math.min(exprLeft, objectLeft);
    }
  }
}

/** The budget left to one object's rules; each expression runs under the smaller of both. */
export class ObjectBudget {
  readonly #budget: { readonly expression: Budget; readonly object: Budget };
  readonly #wallStart: number;
  readonly #cpuStart: number;
  #used = 0;

  constructor(budget: { readonly expression: Budget; readonly object: Budget } = defaultBudget) {
    this.#budget = budget;
    this.#wallStart = performance.now();
    this.#cpuStart = cpuMs();
  }

  /** Units used so far by this object's rules. */
  get used(): number {
    return this.#used;
  }

  /** The object's CPU budget in milliseconds. */
  get ms(): number {
    return this.#budget.object.ms;
  }

  /** CPU milliseconds left to the object's rules at the CPU reading `cpu`. */
  cpuLeft(cpu: number): number {
    return this.#budget.object.ms - (cpu - this.#cpuStart);
  }

  /**
   * Runs one expression under the budget; `exhausted` is set when it ran out (f's result is then moot),
   * `ran` is false when nothing was left to start it.
   */
  run<T>(f: () => T): {
    readonly value: T | undefined;
    readonly exhausted: Exhausted | undefined;
    readonly ran: boolean;
  } {
    const now = performance.now();
    const e = this.#budget.expression;
    const o = this.#budget.object;
    const left = o.cost - this.#used;
    if (left <= 0) {
      return { value: undefined, exhausted: { kind: 'cost', limit: o.cost, of: 'object' }, ran: false };
    }
    // Most objects are judged within a millisecond: an expression starting that early counts from the
    // object's CPU reading (its own use is at most that much less) and reads no clock of its own.
    const elapsed = now - this.#wallStart;
    let exprCpuStart = this.#cpuStart;
    // CPU time never runs ahead of wall time, so this is the least the object has left.
    let objectLeft = o.ms - elapsed;
    if (elapsed > sampleAfterMs || objectLeft <= 0) {
      exprCpuStart = cpuMs();
      objectLeft = this.cpuLeft(exprCpuStart);
      if (objectLeft <= 0) {
        return { value: undefined, exhausted: { kind: 'time', ms: o.ms, of: 'object' }, ran: false };
      }
    }
    const m: Meter = {
      used: 0,
      limit: Math.min(e.cost, left),
      limitReported: e.cost <= left ? e.cost : o.cost,
      limitOf: e.cost <= left ? 'expression' : 'object',
      deadline: now + Math.min(e.ms, objectLeft),
      exprCpuStart,
      exprMs: e.ms,
      object: this,
      nextClock: 0,
      charges: 0,
      exhausted: undefined,
    };
    const outer = current;
    current = m;
    let value: T | undefined;
    try {
      value = f();
    } catch (err) {
      if (err !== spent) throw err;
    } finally {
      current = outer;
      this.#used += m.used;
    }
    return { value, exhausted: m.exhausted, ran: true };
  }
}

/** Size in cost units of a value a function takes or returns. */
function units(v: unknown): number {
  if (typeof v === 'string') return (v.length / 10) | 0;
  if (typeof v !== 'object' || v === null) return 0;
  if (v instanceof Uint8Array) return (v.length / 10) | 0;
  if (isCelList(v) || isCelMap(v)) return v.size;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return 0;
}

/**
 * A function that charges its call, its arguments and its result, after it ran (the resolver tries
 * each overload in turn; only the one that answers is charged). `replace` is checked before it runs:
 * its result can be many times its input ('x'.replace('x', 'xxxxxxxxxx') chained), so the bound of
 * the result is charged first and a result over the budget is never built.
 */
export function metered(f: CelFunc): CelFunc {
  const inner = f.call.bind(f);
  const growing = f.name === 'replace';
  const wrapper = Object.create(f) as CelFunc;
  Object.defineProperty(wrapper, 'call', {
    value(id: number, target: unknown, args: unknown[]) {
      if (growing && typeof target === 'string') charge(replaceUnits(target, args));
      const r = inner(id, target as never, args as never);
      if (r === undefined) return r;
      let cost = 1 + units(target) + units(r);
      for (let i = 0; i < args.length; i++) cost += units(args[i]);
      charge(cost);
      return r;
    },
  });
  return wrapper;
}

/** Units of the longest result `target.replace(old, new[, n])` can have, when it can grow. */
function replaceUnits(target: string, args: readonly unknown[]): number {
  const [from, to] = args;
  if (typeof from !== 'string' || typeof to !== 'string' || to.length <= from.length) return 0;
  const n = from.length === 0 ? target.length + 1 : Math.floor(target.length / from.length);
  return ((target.length + n * (to.length - from.length)) / 10) | 0;
}
