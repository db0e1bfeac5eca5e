import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { R1, R2 } from '../../../api/testsupport.ts';
import type { InventoryEntry, InventoryHook } from '../../../api/types.ts';
import { cmEntry } from '../decide/fixtures.ts';
import {
  controllerFields,
  controllerHookFields,
  mergeEntries,
  mergeHooks,
  mergePending,
} from './inventory-writer.ts';

const armed = (name: string, renderRef: string, createdAt: string): InventoryHook => ({
  name,
  phase: 'PreSync',
  kind: 'Job',
  renderRef,
  workloadName: `${name}-${renderRef.slice(7, 17)}`,
  namespace: 'app',
  createdAt,
  timeout: '5m',
});

/** One `it` per row [name, args, want]: what `got` makes of the args deep-equals want. */
function rows<A extends unknown[], W>(table: [string, A, W][], got: (...args: A) => W): void {
  for (const [name, args, want] of table) it(name, () => assert.deepEqual(got(...args), want));
}

describe('controllerHookFields', () => {
  it('keeps the definition and its namespace, drops the observer’s fields', () => {
    const h = { ...armed('m', R1, '2025-06-01T12:00:00Z'), state: 'Succeeded' as const, reason: 'Succeeded' };
    assert.deepEqual(
      controllerHookFields({ ...h, message: 'ok', finishedAt: '2025-06-01T12:01:00Z' }),
      armed('m', R1, '2025-06-01T12:00:00Z'),
    );
  });
});

describe('mergeHooks', () => {
  it('replaces by name, keeps the others in place, appends new ones', () => {
    const current = [
      { ...armed('a', R1, '2025-06-01T12:00:00Z'), state: 'Failed' as const },
      armed('b', R1, '2025-06-01T12:00:00Z'),
    ];
    const merged = mergeHooks(current, [
      armed('a', R2, '2025-06-01T12:05:00Z'),
      armed('c', R2, '2025-06-01T12:05:00Z'),
    ]);
    assert.deepEqual(merged, [
      armed('a', R2, '2025-06-01T12:05:00Z'),
      armed('b', R1, '2025-06-01T12:00:00Z'),
      armed('c', R2, '2025-06-01T12:05:00Z'),
    ]);
  });
  it('no changes: the controller’s fields of what is there', () => {
    assert.deepEqual(mergeHooks([{ ...armed('a', R1, '2025-06-01T12:00:00Z'), state: 'Running' }], []), [
      armed('a', R1, '2025-06-01T12:00:00Z'),
    ]);
  });
});

describe('mergeEntries: appliedResourceVersion', () => {
  const e = (name: string, renderRef: string, rv?: string) =>
    cmEntry(name, renderRef, rv === undefined ? {} : { appliedResourceVersion: rv });
  const table: [string, Parameters<typeof mergeEntries>, (string | undefined)[]][] = [
    [
      "a re-apply of the same render keeps the first apply's version",
      [[e('a', R1, '10')], [e('a', R1, '15')]],
      ['10'],
    ],
    ["a new render records its own apply's version", [[e('a', R1, '10')], [e('a', R2, '15')]], ['15']],
    ['a first record takes the version', [[], [e('a', R1, '10')]], ['10']],
    ["an older entry without a version takes the re-apply's", [[e('a', R1)], [e('a', R1, '15')]], ['15']],
    ['a change without a version keeps the one recorded', [[e('a', R1, '10')], [e('a', R1)]], ['10']],
    [
      'unchanged entries keep theirs',
      [[e('a', R1, '10'), e('b', R1, '11')], [e('b', R2, '20')]],
      ['10', '20'],
    ],
  ];
  rows(table, (...args) => mergeEntries(...args).map((x) => x.appliedResourceVersion));
  it("the version is a controller field; the observer's fields are not", () => {
    const x = { ...e('a', R1, '10'), state: 'Healthy', message: 'ok' } as InventoryEntry;
    assert.deepEqual(controllerFields(x), e('a', R1, '10'));
  });
});

describe('mergePending', () => {
  const p = (name: string, renderRef = R1) => cmEntry(name, renderRef);
  const table: [string, Parameters<typeof mergePending>, string[]][] = [
    ['adds new keys after the current ones', [[p('a')], [p('b'), p('c')]], ['a', 'b', 'c']],
    ['a key noted again is replaced in place', [[p('a'), p('b')], [p('a', R2)]], ['a', 'b']],
    ['settled keys leave', [[p('a'), p('b')], [], [p('a')]], ['b']],
    ['a key added and settled in one call leaves', [[], [p('a')], [p('a')]], []],
    ['settling a key that is not pending changes nothing', [[p('a')], [], [p('z')]], ['a']],
  ];
  rows(table, (...args) => mergePending(...args).map((e) => e.name));
  it('keeps only the pending fields', () => {
    const extra = { ...p('a'), state: 'Healthy' } as ReturnType<typeof p>;
    assert.deepEqual(mergePending([extra], []), [p('a')]);
  });
});
