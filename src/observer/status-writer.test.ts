// The observer's shared status writer over a client that records each request: one write for two
// verdicts when the other loop's pass is due, a write at once when it is not, and nothing lost when that
// pass ends without a part, never comes, or the write fails. The bodies and the wait decision:
// ./status-parts.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIELD_MANAGERS } from '../api/constants.ts';
import type { Release, ReleaseStatus } from '../api/types.ts';
import type { KubeClient, RawRequest } from '../kube/client.ts';
import { KubeApiError } from '../kube/errors.ts';
import { mergeParts, type StatusPart } from './status-parts.ts';
import { drift, health, release } from './status-testsupport.ts';
import { ObserverStatusWriter, queueStatusLoop } from './status-writer.ts';

/** A client whose status applies answer after a turn of the event loop; `fail` makes the next one fail. */
function recordingClient() {
  const writes: { fieldManager: unknown; status: ReleaseStatus }[] = [];
  let fail: Error | undefined;
  let rv = 1;
  const client = {
    pathOf: async () => '/apis/convoy.kumodo.io/v1alpha1/namespaces/ns/releases/r/status',
    request: async (req: RawRequest) => {
      await new Promise((r) => setImmediate(r));
      const body = req.body as Release;
      writes.push({ fieldManager: req.query?.fieldManager, status: body.status ?? {} });
      if (fail !== undefined) {
        const err = fail;
        fail = undefined;
        throw err;
      }
      rv++;
      return { ...body, metadata: { ...body.metadata, uid: 'u1', resourceVersion: String(rv) } };
    },
  };
  return {
    client: client as unknown as KubeClient,
    writes,
    failNext: (e: Error) => {
      fail = e;
    },
  };
}

/** Two loops as the writer sees them: whether each has a pass due, and what each was told. */
function loops(writer: ObserverStatusWriter) {
  const due: Record<StatusPart, boolean> = { health: false, drift: false };
  const queued: Record<StatusPart, boolean> = { health: false, drift: false };
  const told: string[] = [];
  let onTold = () => {};
  for (const part of ['health', 'drift'] as const)
    writer.register(part, {
      due: () => due[part],
      queued: () => queued[part],
      written: (_key, r, carried) => {
        told.push(`${part} written rv=${r.metadata.resourceVersion} carried=${carried}`);
        onTold();
      },
      failed: (_key, err) => {
        told.push(`${part} failed: ${(err as Error).message}`);
        onTold();
      },
    });
  const next = () => new Promise<void>((r) => (onTold = r));
  return { due, queued, told, next };
}

/**
 * A writer over a recording client with both loops registered; `due`: the loops with a pass due from the
 * start (the other loop's pass a post then waits for).
 */
function setup(opts: { maxWaitMs?: number; due?: readonly StatusPart[] } = {}) {
  const c = recordingClient();
  const w = new ObserverStatusWriter(
    c.client,
    opts.maxWaitMs === undefined ? undefined : { maxWaitMs: opts.maxWaitMs },
  );
  const l = loops(w);
  for (const part of opts.due ?? []) l.due[part] = true;
  return { c, w, l };
}

describe('ObserverStatusWriter', () => {
  it('writes a part at once when the other loop has no pass due, sending the other part as stored', async () => {
    const { c, w, l } = setup();
    const stored = release({ conditions: [...drift().conditions], driftSummary: drift().driftSummary });
    const r = await w.post('ns/r', stored, 'health', health('Progressing'));
    assert.equal(r.written?.metadata.resourceVersion, '2');
    assert.equal(c.writes.length, 1);
    assert.equal(c.writes[0]?.fieldManager, FIELD_MANAGERS.observer);
    assert.deepEqual(c.writes[0]?.status, mergeParts({ health: health('Progressing'), drift: drift() }));
    assert.deepEqual(l.told, ['health written rv=2 carried=true', 'drift written rv=2 carried=false']);
  });

  it('waits for the other loop due on the same Release: two verdicts, one write', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000, due: ['drift'] });
    const first = await w.post('ns/r', release(), 'health', health());
    assert.equal(first.written, undefined, 'deferred to the drift pass');
    assert.equal(c.writes.length, 0);
    l.due.health = false;
    const second = await w.post('ns/r', release(), 'drift', drift());
    assert.equal(second.written?.metadata.resourceVersion, '2');
    assert.equal(c.writes.length, 1);
    assert.deepEqual(c.writes[0]?.status, mergeParts({ health: health(), drift: drift() }));
    assert.deepEqual(l.told, ['health written rv=2 carried=true', 'drift written rv=2 carried=true']);
  });

  it('writes a deferred part when the awaited pass ends without one', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000, due: ['drift'] });
    await w.post('ns/r', release(), 'health', health());
    const told = l.next();
    w.passEnded('drift', 'ns/r');
    await told;
    assert.equal(c.writes.length, 1);
    assert.deepEqual(c.writes[0]?.status, mergeParts({ health: health() }));
    assert.equal(l.told[0], 'health written rv=2 carried=true');
  });

  it('writes a deferred part after maxWaitMs when the awaited pass does not come', async () => {
    const { c, w, l } = setup({ maxWaitMs: 5, due: ['drift'] });
    const told = l.next();
    await w.post('ns/r', release(), 'health', health());
    await told;
    assert.equal(c.writes.length, 1);
    assert.deepEqual(l.told, ['health written rv=2 carried=true', 'drift written rv=2 carried=false']);
  });

  it('a failed write reaches the loop that waited as an error and the deferred loop through failed', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000, due: ['drift'] });
    await w.post('ns/r', release(), 'health', health());
    c.failNext(new KubeApiError(500, 'InternalError', 'etcd is down', [], undefined));
    await assert.rejects(w.post('ns/r', release(), 'drift', drift()), /etcd is down/);
    assert.deepEqual(l.told, ['health failed: etcd is down']);
    // Nothing is left pending: the next post writes what it carries at once.
    const again = await w.post('ns/r', release(), 'drift', drift());
    assert.equal(again.written?.metadata.resourceVersion, '2');
    assert.equal(c.writes.length, 2);
  });

  it('a part posted while a write is in flight goes out in the next write, after it', async () => {
    const { c, w } = setup();
    const a = w.post('ns/r', release(), 'health', health('Progressing'));
    const b = w.post('ns/r', release(), 'health', health());
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.written?.metadata.resourceVersion, '2');
    assert.equal(rb.written?.metadata.resourceVersion, '3');
    assert.deepEqual(
      c.writes.map((x) => x.status.conditions?.[0]?.reason),
      ['Progressing', 'Healthy'],
    );
  });

  it('a new Release of the same name starts from its own stored status, and forget drops a waiting part', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000 });
    await w.post('ns/r', release(), 'drift', drift('Drifted'));
    await w.post('ns/r', release(undefined, 'u2'), 'health', health());
    assert.deepEqual(
      c.writes[1]?.status,
      mergeParts({ health: health() }),
      'the old uid’s drift part is not sent',
    );
    l.due.drift = true;
    await w.post('ns/r', release(undefined, 'u2'), 'health', health('Progressing'));
    w.forget('ns/r');
    w.passEnded('drift', 'ns/r');
    assert.equal(c.writes.length, 2);
  });
});

describe('ObserverStatusWriter: a pass that ended before the part came', () => {
  it('does not release a later wait for that loop', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000 });
    await w.post('ns/r', release(), 'drift', drift());
    // The drift loop's next pass ends with nothing to post; later it is due again.
    w.passEnded('drift', 'ns/r');
    l.due.drift = true;
    const deferred = await w.post('ns/r', release(), 'health', health());
    assert.equal(deferred.written, undefined, 'waits for the drift pass that is due now');
    const both = await w.post('ns/r', release(), 'drift', drift('Drifted'));
    assert.equal(both.written?.metadata.resourceVersion, '3');
    assert.deepEqual(c.writes[1]?.status, mergeParts({ health: health(), drift: drift('Drifted') }));
  });
});

describe('ObserverStatusWriter: a pass that ends while the loop is queued again', () => {
  it('keeps the wait for the next pass of that loop', async () => {
    const { c, w, l } = setup({ maxWaitMs: 60_000, due: ['health'] });
    const deferred = await w.post('ns/r', release(), 'drift', drift());
    assert.equal(deferred.written, undefined);
    // The health pass that ran held its verdict, and the Release's status event queued it again.
    l.queued.health = true;
    w.passEnded('health', 'ns/r');
    assert.equal(c.writes.length, 0, 'still waiting for the queued health pass');
    const both = await w.post('ns/r', release(), 'health', health());
    assert.equal(both.written?.metadata.resourceVersion, '2');
    assert.deepEqual(c.writes[0]?.status, mergeParts({ health: health(), drift: drift() }));
  });
});

describe('queueStatusLoop', () => {
  it('is due while the key is queued or processed, queued only while added again, and retries with backoff', () => {
    const calls: string[] = [];
    const state = { queued: false, processing: false };
    const loop = queueStatusLoop(
      {
        isQueued: () => state.queued,
        isProcessing: () => state.processing,
        addRateLimited: (key) => calls.push(`retry ${key}`),
      },
      () => {},
    );
    const rows: [boolean, boolean, boolean, boolean][] = [
      [false, false, false, false],
      [true, false, true, true],
      [false, true, true, false],
      [true, true, true, true],
    ];
    for (const [queued, processing, due, q] of rows) {
      Object.assign(state, { queued, processing });
      assert.equal(loop.due('ns/r'), due, `due: queued ${queued}, processing ${processing}`);
      assert.equal(loop.queued('ns/r'), q, `queued: queued ${queued}, processing ${processing}`);
    }
    loop.failed('ns/r', new Error('x'));
    assert.deepEqual(calls, ['retry ns/r']);
  });
});
