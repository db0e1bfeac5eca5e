// Table test for forEachBounded: how many jobs run at once, which start after a 'stop', and which error
// the caller sees.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachBounded } from './bounded.ts';

type Job = { readonly ms: number; readonly result?: 'stop' | 'throw' };

const cases: ReadonlyArray<{
  name: string;
  limit: number;
  jobs: readonly Job[];
  started: readonly number[];
  maxInFlight: number;
  error?: string;
}> = [
  { name: 'no items', limit: 4, jobs: [], started: [], maxInFlight: 0 },
  {
    name: 'all run, at most limit at once',
    limit: 2,
    jobs: [{ ms: 5 }, { ms: 5 }, { ms: 5 }, { ms: 5 }, { ms: 5 }],
    started: [0, 1, 2, 3, 4],
    maxInFlight: 2,
  },
  {
    name: 'limit above the count runs all at once',
    limit: 16,
    jobs: [{ ms: 5 }, { ms: 5 }, { ms: 5 }],
    started: [0, 1, 2],
    maxInFlight: 3,
  },
  {
    name: 'a limit below 1 counts as 1',
    limit: 0,
    jobs: [{ ms: 1 }, { ms: 1 }, { ms: 1 }],
    started: [0, 1, 2],
    maxInFlight: 1,
  },
  {
    name: 'stop starts no further item; those in flight finish',
    limit: 2,
    jobs: [{ ms: 1, result: 'stop' }, { ms: 20 }, { ms: 1 }, { ms: 1 }],
    started: [0, 1],
    maxInFlight: 2,
  },
  {
    name: 'a throw does not stop the others; the first error is rethrown after all settle',
    limit: 2,
    jobs: [{ ms: 10, result: 'throw' }, { ms: 1, result: 'throw' }, { ms: 1 }, { ms: 1 }],
    started: [0, 1, 2, 3],
    maxInFlight: 2,
    error: 'job 1',
  },
];

for (const c of cases) {
  test(`forEachBounded: ${c.name}`, async () => {
    const started: number[] = [];
    const finished = new Set<number>();
    let inFlight = 0;
    let maxInFlight = 0;
    const run = forEachBounded(c.jobs, c.limit, async (job, i) => {
      started.push(i);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, job.ms));
      inFlight--;
      finished.add(i);
      if (job.result === 'throw') throw new Error(`job ${i}`);
      return job.result;
    });
    if (c.error === undefined) await run;
    else await assert.rejects(run, { message: c.error });
    assert.deepEqual(started, c.started);
    assert.equal(maxInFlight, c.maxInFlight);
    // Nothing is left running behind the caller.
    assert.equal(finished.size, started.length);
  });
}
