// The observer's status parts (tables): the part a stored status holds, the body of one write, and when a
// posted part waits for the other loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReleaseStatus } from '../api/types.ts';
import { mergeParts, mustWait, type StatusPart, storedPart, storedParts } from './status-parts.ts';
import { cond, drift, health } from './status-testsupport.ts';

describe('storedPart, storedParts and mergeParts', () => {
  const stored: ReleaseStatus = {
    conditions: [cond('Ready', 'True', 'Synced'), ...health().conditions, ...drift().conditions],
    healthSummary: health().healthSummary,
    driftSummary: drift().driftSummary,
  };
  const rows: [string, ReleaseStatus | undefined, StatusPart, unknown][] = [
    ['no status', undefined, 'health', undefined],
    ['the health part of a full status', stored, 'health', health()],
    ['the drift part of a full status', stored, 'drift', drift()],
    ['a condition without its summary', { conditions: [...health().conditions] }, 'health', undefined],
    [
      'the controller condition is no part',
      { conditions: [cond('Ready', 'True', 'Synced')] },
      'drift',
      undefined,
    ],
  ];
  for (const [name, status, part, want] of rows)
    it(`storedPart: ${name}`, () => assert.deepEqual(storedPart(status, part), want));

  const merged: [string, Parameters<typeof mergeParts>[0], unknown][] = [
    [
      'both parts',
      { health: health(), drift: drift() },
      {
        conditions: [...health().conditions, ...drift().conditions],
        healthSummary: health().healthSummary,
        driftSummary: drift().driftSummary,
      },
    ],
    [
      'health alone (the drift loop is off)',
      { health: health() },
      {
        conditions: health().conditions,
        healthSummary: health().healthSummary,
      },
    ],
    [
      'drift alone',
      { drift: drift() },
      { conditions: drift().conditions, driftSummary: drift().driftSummary },
    ],
  ];
  for (const [name, parts, want] of merged)
    it(`mergeParts: ${name}`, () => assert.deepEqual(mergeParts(parts), want));
  it('storedParts: every part a full status holds, none of an empty one', () => {
    assert.deepEqual(storedParts(stored), { health: health(), drift: drift() });
    assert.deepEqual(storedParts(undefined), {});
  });
});

describe('mustWait', () => {
  const other = (due: boolean, posted: boolean, ended: boolean) => ({ due, posted, ended });
  const rows: [string, Parameters<typeof mustWait>[0], boolean][] = [
    ['no other loop (one loop alone)', [], false],
    ['the other loop has no pass due', [other(false, false, false)], false],
    ['the other loop has a pass due', [other(true, false, false)], true],
    ['its part came already', [other(true, true, false)], false],
    ['its pass ended without a part', [other(true, false, true)], false],
    ['one of two others still due', [other(true, true, false), other(true, false, false)], true],
  ];
  for (const [name, others, want] of rows) it(name, () => assert.equal(mustWait(others), want));
});
