// Entry point of the `convoy` CLI (also `kubectl convoy`): `dev` here, every other command in
// src/cli/main.ts.
import { parseArgs } from 'node:util';
import { runDev } from '../cli/dev.ts';
import { runCli } from '../cli/main.ts';

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dev': {
      const { values } = parseArgs({ args: [...rest], options: { nodes: { type: 'string', default: '3' } } });
      const nodes = Number.parseInt(values.nodes, 10);
      if (!Number.isInteger(nodes) || nodes < 1) {
        process.stderr.write(`convoy dev: --nodes must be a positive integer, got "${values.nodes}"\n`);
        return 2;
      }
      await runDev({ nodes, out: process.stdout });
      return 0;
    }
    case undefined:
      await runCli(['help'], io());
      return 2;
    default:
      return runCli(argv, io());
  }
}

function io() {
  return {
    out: process.stdout,
    err: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: () => new Date(),
  };
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`convoy: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
