// The freshness decisions as tables: which read answers a sync request, and how a ref is read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answers, planRefRead, type RefReadPlan } from './freshness.ts';

describe('answers', () => {
  const cases: [string, number, number | undefined, boolean][] = [
    ['no request: any read does', 5, undefined, true],
    ['a read started before the request was seen does not', 5, 10, false],
    ['a read started as the request was seen does', 10, 10, true],
    ['a read started after it does', 11, 10, true],
  ];
  for (const [name, startedAt, readAfter, want] of cases) {
    it(name, () => assert.equal(answers(startedAt, readAfter), want));
  }
});

describe('planRefRead', () => {
  const cases: [string, number | undefined, number | undefined, RefReadPlan['kind']][] = [
    ['no request, never read: poll', undefined, undefined, 'poll'],
    ['no request, read before: poll (the server is asked every interval)', undefined, 3, 'poll'],
    ['a request, never read: fetch at once', 10, undefined, 'fetch'],
    ['a request after the last read: fetch at once', 10, 9, 'fetch'],
    ['a request answered by a read that started with it: cached', 10, 10, 'cached'],
    ['a request answered by a later read: cached', 10, 12, 'cached'],
  ];
  for (const [name, readAfter, lastRead, want] of cases) {
    it(name, () => assert.equal(planRefRead(readAfter, lastRead).kind, want));
  }
  // now 100; the interval 30
  const windowed: [string, number | undefined, number | undefined, RefReadPlan['kind']][] = [
    [
      'a poll within the interval of the last read (another Release of the repository): cached',
      undefined,
      80,
      'cached',
    ],
    ['a poll an interval or more after the last read: poll', undefined, 70, 'poll'],
    ['a poll never read before: poll', undefined, undefined, 'poll'],
    ['a request is never answered by the window: fetch', 95, 80, 'fetch'],
  ];
  for (const [name, readAfter, lastRead, want] of windowed) {
    it(name, () => assert.equal(planRefRead(readAfter, lastRead, 100, 30).kind, want));
  }
});
