// One compilation of the rules per distinct selection: every pass of every Release that selects the same
// rule sets shares the evaluator (an Evaluator holds no per-pass state). Without it each pass compiled
// every CEL rule again — at thousands of Releases the observer's largest CPU cost. Keyed by the selected
// sets' content, so an edited rule set is a new key; a selection that does not compile keeps its error.
import { type Evaluator, newEvaluator } from './evaluator.ts';
import type { HealthRuleSetLike } from './types.ts';

type Compiled =
  | { readonly ok: true; readonly evaluator: Evaluator }
  | { readonly ok: false; readonly error: unknown };

export class EvaluatorMemo {
  readonly #max: number;
  readonly #compile: (ruleSets: readonly HealthRuleSetLike[]) => Evaluator;
  // Map order is insertion order: re-inserting on a hit keeps the least recently used first.
  readonly #byKey = new Map<string, Compiled>();

  constructor(max = 32, compile: (ruleSets: readonly HealthRuleSetLike[]) => Evaluator = newEvaluator) {
    this.#max = max;
    this.#compile = compile;
  }

  /** The evaluator of these rule sets; throws what newEvaluator threw for them. */
  get(ruleSets: readonly HealthRuleSetLike[]): Evaluator {
    const key = JSON.stringify(ruleSets);
    let c = this.#byKey.get(key);
    if (c === undefined) {
      try {
        c = { ok: true, evaluator: this.#compile(ruleSets) };
      } catch (error) {
        c = { ok: false, error };
      }
      if (this.#byKey.size >= this.#max) {
        const oldest = this.#byKey.keys().next();
        if (oldest.done !== true) this.#byKey.delete(oldest.value);
      }
    } else this.#byKey.delete(key);
    this.#byKey.set(key, c);
    if (!c.ok) throw c.error;
    return c.evaluator;
  }

  get size(): number {
    return this.#byKey.size;
  }
}
