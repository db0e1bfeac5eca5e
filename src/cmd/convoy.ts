// Entry point of the `convoy` CLI (also `kubectl convoy`): `dev` here, every other command in
// src/cli/main.ts.
import { devMain } from '../cli/dev.ts';
import { runCli } from '../cli/main.ts';

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dev':
      return await devMain(rest, process.stdout, process.stderr);
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
