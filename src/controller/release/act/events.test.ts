// The rollout Event's fixed name and its recovery after a restart, by table: one name per transition,
// the same in every process; a persisted transition is announced again only while it is recent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { R1, R2 } from '../../../api/testsupport.ts';
import type { Condition, Release } from '../../../api/types.ts';
import type { Rollout } from '../decide/rollout/index.ts';
import {
  eventBeforeReplacing,
  eventObject,
  eventsFor,
  RECOVER_EVENT_WINDOW_MS,
  recoveredRolloutEvent,
  rolloutEventName,
  rolloutKey,
} from './events.ts';

const release = (uid = 'u-1'): Release =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'app', namespace: 'team', uid },
    spec: {},
  }) as unknown as Release;
const T = Date.parse('2026-12-02T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const succeeded = (finishedAt = iso(T)): Rollout => ({
  state: 'Succeeded',
  renderRef: R1,
  startedAt: iso(T - 60_000),
  finishedAt,
  reason: 'Healthy',
});

describe('rolloutEventName', () => {
  it('is the same for the same transition, in any process', () =>
    assert.equal(rolloutEventName(release(), succeeded()), rolloutEventName(release(), succeeded())));
  const rows: [string, Release, Rollout][] = [
    ['another render', release(), { ...succeeded(), renderRef: R2 }],
    ['another state', release(), { ...succeeded(), state: 'Failed' }],
    ['another attempt of the render', release(), { ...succeeded(), startedAt: iso(T - 30_000) }],
    ['another Release of the same name (new uid)', release('u-2'), succeeded()],
  ];
  for (const [what, rel, ro] of rows)
    it(`differs for ${what}`, () =>
      assert.notEqual(rolloutEventName(rel, ro), rolloutEventName(release(), succeeded())));
  it('is a valid Event name under the Release name', () =>
    assert.match(rolloutEventName(release(), succeeded()), /^app\.rollout-[0-9a-f]{16}$/));
  it('is named, not generated, in the Event object', () => {
    const o = eventObject(release(), { type: 'Normal', reason: 'R', message: 'm', name: 'app.rollout-1' }, T);
    assert.deepEqual(o.metadata, { name: 'app.rollout-1', namespace: 'team' });
    const g = eventObject(release(), { type: 'Normal', reason: 'R', message: 'm' }, T);
    assert.deepEqual(g.metadata, { generateName: 'app.', namespace: 'team' });
  });
});

describe('rolloutKey', () => {
  it('tells transitions apart by state, render and clock', () => {
    assert.notEqual(rolloutKey(succeeded()), rolloutKey({ ...succeeded(), state: 'RolledBack' }));
    assert.equal(rolloutKey(succeeded()), rolloutKey({ ...succeeded(), message: 'other words' }));
  });
});

describe('recoveredRolloutEvent', () => {
  const rows: [string, Rollout, number, boolean][] = [
    ['a transition a moment ago', succeeded(), T + 5_000, true],
    ['one just inside the window', succeeded(), T + RECOVER_EVENT_WINDOW_MS, true],
    ['one past the window (a routine restart)', succeeded(), T + RECOVER_EVENT_WINDOW_MS + 1, false],
    [
      'a Progressing rollout, by its start',
      { state: 'Progressing', renderRef: R1, startedAt: iso(T) },
      T + 1_000,
      true,
    ],
    ['a transition without a clock', { state: 'Progressing', renderRef: R1 }, T, false],
  ];
  for (const [what, ro, now, want] of rows)
    it(`${want ? 'announces' : 'does not announce'} ${what}`, () =>
      assert.equal(recoveredRolloutEvent(release(), ro, undefined, now) !== undefined, want));
  it('carries the fixed name, the reason and a message naming the new state and render', () => {
    const e = recoveredRolloutEvent(
      release(),
      { ...succeeded(), state: 'RolledBack', renderRef: R2, reason: 'DeadlineExceeded' },
      { renderRef: R1, appliedAt: iso(T - 120_000) } as never,
      T + 1_000,
    );
    assert.ok(e);
    assert.equal(e.type, 'Warning');
    assert.equal(e.reason, 'RolloutRolledBack');
    assert.equal(
      e.name,
      rolloutEventName(release(), {
        ...succeeded(),
        state: 'RolledBack',
        renderRef: R2,
        reason: 'DeadlineExceeded',
      }),
    );
    assert.match(
      e.message,
      /^rollout → RolledBack \(sha256:2{7}.*reason DeadlineExceeded; last healthy render/,
    );
    assert.match(e.message, /\(recorded after a controller restart\)$/);
  });
});

describe('eventBeforeReplacing', () => {
  const progressing2: Rollout = { state: 'Progressing', renderRef: R2, startedAt: iso(T + 2_000) };
  const withStatus = (rollout: Rollout): Release => ({ ...release(), status: { rollout } }) as Release;
  const rows: [string, Rollout, Rollout | undefined, Map<string, string> | undefined, boolean][] = [
    ['a new process writing over a transition it never recorded', succeeded(), progressing2, new Map(), true],
    [
      'a process writing over a transition it recorded itself',
      succeeded(),
      progressing2,
      new Map([['u-1', rolloutKey(succeeded())]]),
      false,
    ],
    [
      'a write that keeps the rollout (no transition)',
      succeeded(),
      { ...succeeded(), message: 'x' },
      new Map(),
      false,
    ],
    ['a write without a rollout', succeeded(), undefined, new Map(), false],
    [
      'a transition past the recovery window',
      succeeded(iso(T - RECOVER_EVENT_WINDOW_MS - 10_000)),
      progressing2,
      new Map(),
      false,
    ],
    [
      'deps without the evented map (tests that build their own)',
      succeeded(),
      progressing2,
      undefined,
      false,
    ],
  ];
  for (const [what, prior, next, evented, want] of rows)
    it(`${want ? 'sends' : 'does not send'} first for ${what}`, () =>
      assert.equal(eventBeforeReplacing(withStatus(prior), next, evented, T + 5_000) !== undefined, want));
  it("is the prior transition's recovered Event, under its fixed name", () => {
    const e = eventBeforeReplacing(withStatus(succeeded()), progressing2, new Map(), T + 5_000);
    assert.equal(e?.name, rolloutEventName(release(), succeeded()));
    assert.equal(e?.reason, 'RolloutSucceeded');
  });
});

// The Verified condition (docs/design.md#verification): one Event when the verification's phase turns.
const verified = (status: Condition['status'], reason: string, message: string): Condition => ({
  type: 'Verified',
  status,
  reason,
  message,
  lastTransitionTime: '2030-01-01T00:00:00Z',
});

it('a Verified outcome is an Event; waiting, measuring and a new message are not', () => {
  const verifying = verified('Unknown', 'Verifying', 'verifying: 1 of 2 measurements');
  assert.deepEqual(eventsFor([], [verifying], []), [], 'waiting and measuring record nothing');
  assert.deepEqual(
    eventsFor([verifying], [{ ...verifying, message: 'verifying: 2 of 2 measurements' }], []),
    [],
  );
  const held = verified('False', 'VerificationInconclusive', 'prometheus unreachable');
  assert.deepEqual(eventsFor([verifying], [held], []), [
    { type: 'Warning', reason: 'VerificationInconclusive', message: 'prometheus unreachable' },
  ]);
  assert.deepEqual(eventsFor([held], [verified('True', 'Passed', 'passed')], []), [
    { type: 'Normal', reason: 'Passed', message: 'passed' },
  ]);
});
