// CEL rules built to exhaust the evaluator (docs/design.md#fault-model, and variants that try to slip past
// the meter). Shared by the unit tests, the e2e test and bench:health-rules: each must end as
// "rule … exceeded its budget". The first three fit the HealthRuleSet schema (4,096 characters an
// expression); the others are for the evaluator alone.
const ints = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
const strings100 = `[${Array.from({ length: 100 }, (_, i) => `'${String(i).padStart(100, 'x')}'`).join(',')}]`;

export const hostileRules: readonly (readonly [string, string])[] = [
  ['list literals under 3 macros', `${ints}.map(a, ${ints}.map(b, ${ints}.map(c, [a, b, c]))).size() > 0`],
  ['replace chained 9 times', `'x'${".replace('x','xxxxxxxxxx')".repeat(9)} == ''`],
  [
    '100-character strings built under 3 macros',
    `${ints}.map(a, ${ints}.map(b, ${ints}.map(c, '${'x'.repeat(100)}' + string(c)))).size() > 0`,
  ],
  [
    '100 strings of 100 characters under 3 macros',
    `${strings100}.map(a, ${ints}.map(b, ${ints}.map(c, a + a + a))).size() > 0`,
  ],
  [
    'all() over list literals, no function call in the body',
    `${ints}.all(a, ${ints}.all(b, ${ints}.all(c, true)))`,
  ],
  [
    'every iteration an error (absorbed by && / ||)',
    `${ints}.all(a, ${ints}.all(b, ${ints}.all(c, object.x == 1)))`,
  ],
  ['equality of large built lists', `${ints}.map(a, ${ints}.map(b, ${ints})).all(x, ${ints}.all(y, x == x))`],
  ['string doubling by +', `${ints}.map(a, ${ints}.map(b, 'x' + 'y')).exists(l, l.join('').size() < 0)`],
];
