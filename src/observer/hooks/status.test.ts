// Table tests of writeHookStatus's body: which entries are sent, when the write is skipped, and the
// hook-batch-complete edge.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../api/types.ts';
import type { HookVerdict } from './decide.ts';
import { planHookStatus } from './status.ts';

const now = new Date('2030-01-01T00:10:00.700Z');
const running: HookVerdict = { state: 'Running', reason: 'Running', message: '' };
const ok: HookVerdict = { state: 'Succeeded', reason: 'Succeeded', message: '' };
const hook = (name: string, extra: Partial<InventoryHook> = {}): InventoryHook => ({
  name,
  workloadName: `${name}-w`,
  createdAt: '2030-01-01T00:09:00Z',
  ...extra,
});

describe('planHookStatus', () => {
  it('sends every hook with a state, polled or not, and only those', () => {
    const hooks = [
      hook('a'),
      hook('b', { state: 'Succeeded', reason: 'Succeeded', finishedAt: '2030-01-01T00:09:30Z' }),
      hook('c', { workloadName: undefined }),
    ];
    const p = planHookStatus(hooks, new Map([['a', ok]]), now);
    assert.deepEqual(p.items, [
      { name: 'a', state: 'Succeeded', reason: 'Succeeded', finishedAt: '2030-01-01T00:10:00Z' },
      { name: 'b', state: 'Succeeded', reason: 'Succeeded', finishedAt: '2030-01-01T00:09:30Z' },
    ]);
    assert.equal(p.changed, true);
    assert.deepEqual(p.finished, ['a']);
    assert.deepEqual(p.running, []);
  });
  it('a Running hook that stays Running changes nothing and finishes nothing', () => {
    const p = planHookStatus(
      [hook('a', { state: 'Running', reason: 'Running' })],
      new Map([['a', running]]),
      now,
    );
    assert.equal(p.changed, false);
    assert.deepEqual(p.finished, []);
    assert.deepEqual(p.running, ['a']);
  });
  it('a re-armed hook that runs again drops its finishedAt', () => {
    const h = hook('a', {
      state: 'Failed',
      reason: 'Failed',
      message: 'x',
      finishedAt: '2030-01-01T00:08:00Z',
    });
    const p = planHookStatus([h], new Map([['a', running]]), now);
    assert.deepEqual(p.items, [{ name: 'a', state: 'Running', reason: 'Running' }]);
    assert.equal(p.changed, true);
  });
  it('finishedAt is never before createdAt (clock skew between the processes)', () => {
    const h = hook('a', { createdAt: '2030-01-01T00:11:00Z' });
    const p = planHookStatus([h], new Map([['a', ok]]), now);
    assert.equal(p.items[0]?.finishedAt, '2030-01-01T00:11:00Z');
  });
  it('nothing polled: nothing changed', () => {
    const h = hook('a', { state: 'Succeeded', reason: 'Succeeded', finishedAt: '2030-01-01T00:09:30Z' });
    assert.equal(planHookStatus([h], new Map(), now).changed, false);
  });
});
