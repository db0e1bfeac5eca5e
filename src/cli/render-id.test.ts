import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFullRenderRef, matchRenderId, statusRenderRefs } from './render-id.ts';

const A = `sha256:0123456789ab${'0'.repeat(52)}`;
const B = `sha256:0123456789ac${'0'.repeat(52)}`;
const C = `sha256:fedcba987654${'1'.repeat(52)}`;

test('matchRenderId: a prefix with or without sha256:, unique, absent or ambiguous', () => {
  const known = [A, B, C, A];
  assert.deepEqual(matchRenderId('0123456789ab', known), { kind: 'one', renderRef: A });
  assert.deepEqual(matchRenderId('sha256:fedcba9', known), { kind: 'one', renderRef: C });
  assert.deepEqual(matchRenderId(A, known), { kind: 'one', renderRef: A });
  assert.deepEqual(matchRenderId('0123456789', known), { kind: 'ambiguous', renderRefs: [A, B] });
  assert.deepEqual(matchRenderId('aaaaaaa', known), { kind: 'none' });
  assert.equal(isFullRenderRef(A), true);
  assert.equal(isFullRenderRef('0123456789ab'), false);
});

test('statusRenderRefs: every render the status names', () => {
  assert.deepEqual(
    statusRenderRefs({
      currentRender: { renderRef: A },
      lastHealthy: { renderRef: C },
      history: [{ renderRef: B }],
    }),
    [A, C, B],
  );
  assert.deepEqual(statusRenderRefs(undefined), []);
});
