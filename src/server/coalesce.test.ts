// The coalescer driven by hand: one write per key at a time, the requests that come meanwhile share one
// follow-up write, other keys run beside it, and a failed write fails only those that shared it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coalescer } from './coalesce.ts';

/** A write whose end the test decides. */
function gate() {
  let open: (v: string) => void = () => undefined;
  let shut: (e: Error) => void = () => undefined;
  const p = new Promise<string>((resolve, reject) => {
    open = resolve;
    shut = reject;
  });
  return { p, open, shut };
}

test('Coalescer: requests during a write share one follow-up write; other keys are not held', async () => {
  const c = new Coalescer<string>();
  const started: string[] = [];
  const gates = [gate(), gate(), gate()];
  let n = 0;
  const write = (key: string) => () => {
    const g = gates[n++];
    started.push(key);
    if (g === undefined) throw new Error('more writes than planned');
    return g.p;
  };
  const first = c.run('ns/app', write('app'));
  const second = c.run('ns/app', write('app'));
  const third = c.run('ns/app', write('app'));
  const other = c.run('ns/api', write('api'));
  assert.deepEqual(started, ['app', 'api'], 'the follow-up waits; another Release does not');
  assert.equal(second, third, 'shared');
  gates[0]?.open('one');
  assert.equal(await first, 'one');
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ['app', 'api', 'app']);
  gates[1]?.open('api done');
  gates[2]?.shut(new Error('conflict'));
  assert.equal(await other, 'api done');
  await assert.rejects(second, /conflict/);
  assert.equal(c.size, 0, 'nothing kept once the writes end');
});
