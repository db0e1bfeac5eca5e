// Pending sync requests: dated when seen, answered once, a newer request outlives the answer to an older.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PendingSyncRequests } from './sync-requests.ts';

describe('PendingSyncRequests', () => {
  it('a seen request is pending until answered, dated when it was seen', () => {
    let clock = 10;
    const reqs = new PendingSyncRequests(() => clock);
    assert.equal(reqs.pending('ns/a'), undefined);
    reqs.seen('ns/a');
    clock = 20;
    const p = reqs.pending('ns/a');
    assert.equal(p?.readAfter, 10);
    assert.equal(reqs.pending('ns/b'), undefined);
    p?.answered();
    assert.equal(reqs.pending('ns/a'), undefined);
    assert.equal(reqs.size, 0);
  });

  it('a request seen while an older one was being answered stays pending', () => {
    let clock = 1;
    const reqs = new PendingSyncRequests(() => clock);
    reqs.seen('ns/a');
    const older = reqs.pending('ns/a');
    clock = 2;
    reqs.seen('ns/a');
    older?.answered();
    assert.equal(reqs.pending('ns/a')?.readAfter, 2);
  });

  it('forgets a deleted Release', () => {
    const reqs = new PendingSyncRequests(() => 0);
    reqs.seen('ns/a');
    reqs.forget('ns/a');
    assert.equal(reqs.size, 0);
  });
});
