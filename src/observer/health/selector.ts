// Label selector matching for a rule's match.selector: the one definition lives in src/lib/selector.ts.
export { selectorMatches, selectorProblem } from '../../lib/selector.ts';
