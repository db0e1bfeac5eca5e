import assert from 'node:assert/strict';
import { test } from 'node:test';
import { driftAppeared, selfHealNote } from './drift.ts';

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

test('selfHealNote: only a sync that re-applies the applied render because of drift is a heal', () => {
  const base = { selfHeal: true, forced: false, renderRef: 'R1', lastSuccessfulRef: 'R1' };
  const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => e(n, true));
  const cases: [string, Parameters<typeof selfHealNote>[0], string | undefined][] = [
    [
      'one drifted entry',
      { ...base, entries: [e('a', true), e('b', false)] },
      'self-heal: re-applying 1 drifted object (Deployment ns/a)',
    ],
    [
      'more than five are counted, not listed',
      { ...base, entries: many },
      'self-heal: re-applying 7 drifted objects (Deployment ns/a, Deployment ns/b, Deployment ns/c, Deployment ns/d, Deployment ns/e and 2 more)',
    ],
    ['nothing drifted', { ...base, entries: [e('a', false)] }, undefined],
    ['selfHeal off', { ...base, selfHeal: false, entries: [e('a', true)] }, undefined],
    ['a forced sync is not a heal', { ...base, forced: true, entries: [e('a', true)] }, undefined],
    [
      'a new render is a rollout, not a heal',
      { ...base, renderRef: 'R2', entries: [e('a', true)] },
      undefined,
    ],
    ['nothing applied yet', { ...base, lastSuccessfulRef: undefined, entries: [e('a', true)] }, undefined],
  ];
  for (const [name, input, want] of cases) assert.equal(selfHealNote(input), want, name);
});
