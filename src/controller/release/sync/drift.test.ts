import assert from 'node:assert/strict';
import { test } from 'node:test';
import { driftAppeared } from './drift.ts';

const e = (name: string, drifted?: boolean) => ({
  group: 'apps',
  kind: 'Deployment',
  namespace: 'ns',
  name,
  ...(drifted === undefined ? {} : { drifted }),
});

test('driftAppeared: only an entry turning drifted wakes the controller', () => {
  const cases: [string, object | undefined, object | undefined, boolean][] = [
    ['no inventories', undefined, undefined, false],
    ['nothing drifted', { entries: [e('a')] }, { entries: [e('a', false)] }, false],
    ['an entry turns drifted', { entries: [e('a', false)] }, { entries: [e('a', true)] }, true],
    ['a new entry arrives drifted', { entries: [e('a')] }, { entries: [e('a'), e('b', true)] }, true],
    ['an entry stays drifted', { entries: [e('a', true)] }, { entries: [e('a', true)] }, false],
    ['drift clears', { entries: [e('a', true)] }, { entries: [e('a', false)] }, false],
    ['first sight of a drifted inventory', undefined, { entries: [e('a', true)] }, true],
  ];
  for (const [name, before, after, want] of cases) assert.equal(driftAppeared(before, after), want, name);
});
