import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argNames, redactSecrets, substituteArgs } from './args.ts';

const args = new Map([
  ['service-name', { value: 'checkout', secret: false }],
  ['api-token', { value: 's3cr3t', secret: true }],
]);

test('substituteArgs: the text sent and the text shown', () => {
  const cases: [string, string, string][] = [
    ['rate{service="{{args.service-name}}"}', 'rate{service="checkout"}', 'rate{service="checkout"}'],
    ['Bearer {{ args.api-token }}', 'Bearer s3cr3t', 'Bearer {{args.api-token}}'],
    ['{{args.service-name}}/{{args.service-name}}', 'checkout/checkout', 'checkout/checkout'],
    ['no args', 'no args', 'no args'],
    ['{{ other }} stays', '{{ other }} stays', '{{ other }} stays'],
  ];
  for (const [template, text, shown] of cases) {
    assert.deepEqual(substituteArgs(template, args), { ok: true, text, shown }, template);
  }
});

test('substituteArgs: an unknown arg is refused by name', () => {
  assert.deepEqual(substituteArgs('{{args.nope}} {{args.service-name}} {{args.gone}}', args), {
    ok: false,
    message: 'unknown args nope, gone',
  });
  assert.deepEqual(substituteArgs('{{args.nope}}', new Map()), { ok: false, message: 'unknown arg nope' });
});

test('argNames and redactSecrets', () => {
  assert.deepEqual(argNames('{{args.a}} {{ args.b }} {{args.a}}'), ['a', 'b']);
  assert.equal(redactSecrets('401 for token s3cr3t (s3cr3t)', ['s3cr3t', '']), '401 for token *** (***)');
});
