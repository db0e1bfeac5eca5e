import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommand } from './args.ts';
import { COMMANDS, commandHelp, findCommand, usageText } from './registry.ts';

test('every command has a summary, an example and a --help that lists its flags', () => {
  for (const c of COMMANDS) {
    assert.notEqual(c.summary, '', c.name);
    assert.ok(c.examples.length > 0, `${c.name} has no example`);
    const help = commandHelp(c);
    assert.match(help, new RegExp(`^usage: convoy ${c.name}`), c.name);
    for (const f of c.flags) assert.ok(help.includes(`--${f.name}`), `${c.name} --help lacks --${f.name}`);
    if (c.cluster) assert.match(help, /--kubeconfig PATH/, c.name);
    assert.match(help, /exit codes: 0 success; 1 .*; 2 usage/, c.name);
    for (const e of c.examples) assert.match(e.command, /convoy /, `${c.name}: example ${e.command}`);
  }
});

test('convoy CMD --help and convoy help CMD show that command, for every command', () => {
  for (const c of COMMANDS) {
    const words = c.name.split(' ');
    for (const argv of [
      [...words, '--help'],
      ['help', ...words],
    ]) {
      const p = parseCommand(argv);
      assert.ok(p.ok, argv.join(' '));
      assert.deepEqual(p.command, { kind: 'help', topic: c.name }, argv.join(' '));
    }
  }
});

test('the examples of every command parse (they are what a user copies)', () => {
  for (const c of COMMANDS) {
    for (const e of c.examples) {
      const argv = (e.command.split('| ').pop() ?? '')
        .replace(/"\$\(.*\)"/, 'sha256:0123456789ab')
        .split(' ')
        .filter((w) => w !== '');
      assert.equal(argv[0], 'convoy', e.command);
      const p = parseCommand(argv.slice(1));
      assert.ok(p.ok, `${e.command}: ${p.ok ? '' : p.message}`);
    }
  }
});

test('usage lists every command once; findCommand knows aliases and subcommands', () => {
  const text = usageText();
  for (const c of COMMANDS) assert.ok(text.includes(`  ${c.name}`), c.name);
  assert.equal(findCommand(['list'])?.name, 'get');
  assert.equal(findCommand(['rules', 'eval'])?.name, 'rules eval');
  assert.equal(findCommand(['rules']), undefined);
  assert.equal(findCommand(['nope']), undefined);
});
