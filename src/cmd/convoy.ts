// Entry point of the `convoy` CLI: parses the subcommand and hands over to src/cli.
import { parseArgs } from 'node:util';
import { runDev } from '../cli/dev.ts';

const usage = `usage: convoy <command> [flags]

commands:
  dev [--nodes N]   start a local control plane with simulated nodes (Ctrl-C stops it)
`;

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
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(usage);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`convoy: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`convoy: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
