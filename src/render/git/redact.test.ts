// Table tests: what is scrubbed from git's output before it reaches a condition.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redact, tail } from './redact.ts';

describe('redact', () => {
  const table: [string, string, readonly string[], string][] = [
    ['a known secret', 'bad token s3cr3t-value here', ['s3cr3t-value'], 'bad token *** here'],
    ['the longer secret first', 'dXNlcjpwdw== and pw12', ['pw12', 'dXNlcjpwdw=='], '*** and ***'],
    ['short secrets are left', 'a b c', ['a'], 'a b c'],
    [
      'a URL password',
      "fatal: unable to access 'https://me:hunter2@host/r/'",
      [],
      "fatal: unable to access 'https://me:***@host/r/'",
    ],
    ['a basic header', '> Authorization: Basic dXNlcjpwYXNz', [], '> Authorization: Basic ***'],
    ['a bearer header', 'authorization: bearer abc.def', [], 'authorization: bearer ***'],
    ['another header', 'Authorization: Token xyz', [], 'Authorization: ***'],
    ['nothing to hide', "fatal: repository 'x' not found", ['zzzz'], "fatal: repository 'x' not found"],
  ];
  for (const [name, text, secrets, want] of table) it(name, () => assert.equal(redact(text, secrets), want));
});

describe('tail', () => {
  it('keeps the last non-empty lines', () => {
    assert.equal(tail('a\n\nb\rc\r\nd\n', 2), 'c\nd');
  });
  it('caps the length', () => {
    assert.equal(tail('x'.repeat(50), 6, 10), `…${'x'.repeat(10)}`);
  });
});
