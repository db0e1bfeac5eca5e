// benchPlan: bench:cli measures every command of the registry, and the bench's table gives each one a
// real invocation or a stated reason for measuring only --help.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommand } from '../src/cli/args.ts';
import { COMMANDS } from '../src/cli/registry.ts';
import { BENCH_TABLE, benchPlan, NOT_IN_TABLE } from './cli-plan.ts';

test('benchPlan: every registry command, in order; one missing from the table is measured by --help', () => {
  const plan = benchPlan([{ name: 'get' }, { name: 'fleet watch' }, { name: 'dev' }], {
    get: { run: [{ args: ['get', '-A'] }, { args: ['get', 'x'], reset: ['y'] }] },
    dev: { helpOnly: 'too slow' },
  });
  assert.deepEqual(plan, [
    { command: 'get', args: ['get', '-A'] },
    { command: 'get', args: ['get', 'x'], reset: ['y'] },
    { command: 'fleet watch', args: ['fleet', 'watch', '--help'], note: NOT_IN_TABLE },
    { command: 'dev', args: ['dev', '--help'], note: 'too slow' },
  ]);
});

test('benchPlan: a table entry for a command the registry lacks is an error', () => {
  assert.throws(() => benchPlan([{ name: 'get' }], { gte: { run: [] } }), /registry lacks: gte/);
});

test("the bench's table covers every registry command: a real invocation, or --help with a reason", () => {
  const plan = benchPlan(COMMANDS, BENCH_TABLE);
  for (const c of COMMANDS) {
    const rows = plan.filter((r) => r.command === c.name);
    assert.ok(rows.length > 0, c.name);
    for (const r of rows) {
      assert.notEqual(r.note, NOT_IN_TABLE, `${c.name}: no invocation in BENCH_TABLE`);
      assert.deepEqual(r.args.slice(0, c.name.split(' ').length), c.name.split(' '), c.name);
      for (const argv of [r.args, r.reset ?? []].filter((a) => a.length > 0)) {
        const filled = argv.map((a) =>
          a.replace('{ref1}', 'sha256:0123456789ab').replace('{oci}', 'oci://h/r:1'),
        );
        const p = parseCommand(filled);
        assert.ok(p.ok, `${argv.join(' ')}: ${p.ok ? '' : p.message}`);
      }
    }
  }
});
