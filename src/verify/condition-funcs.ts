// The CEL a verification condition may use beyond the standard library: measured values are doubles
// (a Prometheus sample) while people write int literals (`result[0] * 100 > 1`), so the arithmetic
// operators also take one int and one double (the int is widened, as comparisons already do), and
// `isNaN` / `isInf` test the values Prometheus returns for 0/0 and x/0 (docs/design.md#verification).
import { type CelFunc, CelScalar, celFunc } from '@bufbuild/cel';

const D = CelScalar.DOUBLE;
const I = CelScalar.INT;

const arithmetic: readonly (readonly [string, (a: number, b: number) => number])[] = [
  ['_+_', (a, b) => a + b],
  ['_-_', (a, b) => a - b],
  ['_*_', (a, b) => a * b],
  ['_/_', (a, b) => a / b],
];

export const conditionFuncs: readonly CelFunc[] = [
  ...arithmetic.flatMap(([op, f]) => [
    celFunc(op, [D, I], D, (a: number, b: bigint) => f(a, Number(b))),
    celFunc(op, [I, D], D, (a: bigint, b: number) => f(Number(a), b)),
  ]),
  celFunc('isNaN', [D], CelScalar.BOOL, (x: number) => Number.isNaN(x)),
  celFunc('isInf', [D], CelScalar.BOOL, (x: number) => x === Infinity || x === -Infinity),
];
