// afterFailedSend by table, and the recorder's queue over a writer that fails as told (order, retries,
// the bound, drops counted).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromResponse } from './errors.ts';
import {
  afterFailedSend,
  type DropReason,
  EventRecorder,
  type EventRecorderOptions,
  type EventWriter,
  eventAbout,
  type SendDecision,
} from './events.ts';

const opts = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 };
const status = (code: number) => fromResponse(code, { kind: 'Status', code, message: `code ${code}` });
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });

describe('afterFailedSend', () => {
  const rows: [string, unknown, number, SendDecision][] = [
    ['connection refused (apiserver restarting): retry', refused, 1, { kind: 'retry', afterMs: 100 }],
    ['socket hang up, second try: doubled', new Error('socket hang up'), 2, { kind: 'retry', afterMs: 200 }],
    ['capped', new Error('socket hang up'), 3, { kind: 'retry', afterMs: 250 }],
    ['out of attempts', refused, 4, { kind: 'drop', reason: 'attempts' }],
    ['503 from a starting apiserver: retry', status(503), 1, { kind: 'retry', afterMs: 100 }],
    ['429 throttled: retry', status(429), 1, { kind: 'retry', afterMs: 100 }],
    ['409 generated name collided: retry', status(409), 1, { kind: 'retry', afterMs: 100 }],
    ['403 namespace terminating or forbidden: drop', status(403), 1, { kind: 'drop', reason: 'refused' }],
    ['404 namespace gone: drop', status(404), 1, { kind: 'drop', reason: 'refused' }],
    ['422 invalid: drop', status(422), 1, { kind: 'drop', reason: 'refused' }],
  ];
  for (const [name, error, attempt, want] of rows)
    it(name, () => assert.deepEqual(afterFailedSend(error, attempt, opts), want));
  const named: [string, unknown, SendDecision][] = [
    ['409 for a fixed name: recorded before', status(409), { kind: 'recorded' }],
    ['503 for a fixed name: retry', status(503), { kind: 'retry', afterMs: 100 }],
    ['403 for a fixed name: drop', status(403), { kind: 'drop', reason: 'refused' }],
  ];
  for (const [name, error, want] of named)
    it(name, () => assert.deepEqual(afterFailedSend(error, 1, opts, true), want));
});

/** A writer that fails the first `failures` creates with `error`, then stores. */
function writer(failures: number, error: unknown) {
  const stored: string[] = [];
  let calls = 0;
  return {
    stored,
    get calls() {
      return calls;
    },
    create: async (obj: never) => {
      calls++;
      if (calls <= failures) throw error;
      stored.push((obj as { message: string }).message);
    },
  };
}

/** An EventRecorder over `w` with `opts`, and what it has dropped (by reason) and recorded so far. */
function counting(w: EventWriter, opts: Omit<EventRecorderOptions, 'onDropped' | 'onRecorded'>) {
  const seen = { dropped: [] as DropReason[], recorded: 0 };
  const r = new EventRecorder(w, {
    ...opts,
    onDropped: (reason) => seen.dropped.push(reason),
    onRecorded: () => {
      seen.recorded++;
    },
  });
  return { r, seen };
}

describe('EventRecorder', () => {
  it('retries while the server is away and sends everything afterwards, in order', async () => {
    const w = writer(3, refused);
    const { r, seen } = counting(w, { baseDelayMs: 5, maxDelayMs: 10 });
    r.record({ message: 'a' });
    r.record({ message: 'b' });
    await r.flush();
    assert.deepEqual(w.stored, ['a', 'b']);
    assert.equal(w.calls, 5);
    assert.deepEqual(seen.dropped, []);
    assert.equal(seen.recorded, 2);
    assert.equal(r.queued, 0);
  });
  it('drops an Event the server refuses, counts it, and goes on with the next', async () => {
    const w = writer(1, status(403));
    const { r, seen } = counting(w, { baseDelayMs: 5 });
    r.record({ message: 'a' });
    r.record({ message: 'b' });
    await r.flush();
    assert.deepEqual(w.stored, ['b']);
    assert.deepEqual(seen.dropped, ['refused']);
  });
  it('is bounded: an Event finding the queue full is dropped and counted', async () => {
    const w = writer(1_000_000, refused);
    const { r, seen } = counting(w, { maxQueued: 2, baseDelayMs: 5 });
    for (const m of ['a', 'b', 'c', 'd']) r.record({ message: m });
    assert.equal(r.queued, 2);
    assert.deepEqual(seen.dropped, ['queueFull', 'queueFull']);
    r.stop();
    await r.flush();
    assert.equal(r.queued, 0);
  });
  it('counts a named Event that already exists as recorded, without retrying it', async () => {
    const w = writer(1, status(409));
    const { r, seen } = counting(w, { baseDelayMs: 5 });
    r.record({ metadata: { name: 'app.rollout-1' }, message: 'a' });
    r.record({ metadata: { generateName: 'app.' }, message: 'b' });
    await r.flush();
    assert.equal(w.calls, 2);
    assert.deepEqual(w.stored, ['b']);
    assert.equal(seen.recorded, 2);
    assert.deepEqual(seen.dropped, []);
  });
  it('calls onSent once the server holds the Event (created or a named 409), never for a dropped one', async () => {
    const w = writer(1, status(409));
    const { r } = counting(w, { baseDelayMs: 1, maxAttempts: 1 });
    const sent: string[] = [];
    r.record({ metadata: { name: 'app.rollout-1' }, message: 'exists' }, () => sent.push('exists'));
    r.record({ message: 'new' }, () => sent.push('new'));
    await r.flush();
    const refusing = counting(writer(1_000_000, status(403)), { baseDelayMs: 1 });
    refusing.r.record({ message: 'refused' }, () => sent.push('refused'));
    await refusing.r.flush();
    assert.deepEqual(sent, ['exists', 'new']);
    assert.deepEqual(refusing.seen.dropped, ['refused']);
  });
  it('gives up an Event after maxAttempts', async () => {
    const w = writer(1_000_000, refused);
    const { r, seen } = counting(w, { maxAttempts: 3, baseDelayMs: 1 });
    r.record({ message: 'a' });
    await r.flush();
    assert.equal(w.calls, 3);
    assert.deepEqual(seen.dropped, ['attempts']);
  });
});

describe('eventAbout', () => {
  const about = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'shop', uid: 'u-1', resourceVersion: '7' },
  };
  const now = Date.parse('2030-01-01T00:00:00.000Z');
  it('names the object, the component and the time; a fixed name when given, else generated', () => {
    const e = eventAbout(
      about,
      { type: 'Normal', reason: 'R', message: 'm', name: 'web.x' },
      'convoy-api',
      now,
    );
    assert.deepEqual(e.metadata, { name: 'web.x', namespace: 'shop' });
    assert.deepEqual(e.involvedObject, { ...about.metadata, apiVersion: about.apiVersion, kind: 'Release' });
    assert.deepEqual(e.source, { component: 'convoy-api' });
    assert.equal(e.reportingComponent, 'convoy-api');
    assert.equal(e.firstTimestamp, '2030-01-01T00:00:00.000Z');
    const g = eventAbout(about, { type: 'Warning', reason: 'R', message: 'x'.repeat(2000) }, 'c', now);
    assert.deepEqual(g.metadata, { generateName: 'web.', namespace: 'shop' });
    assert.equal((g.message as string).length, 1024);
  });
});
