// Entry point of the `convoy` CLI (also `kubectl convoy`): every command, `dev` included, is parsed and
// run by src/cli/main.ts, which loads each command's code only when it runs.

import { describeError } from '../cli/errors.ts';
import { runCli } from '../cli/main.ts';

try {
  const argv = process.argv.slice(2);
  const code = await runCli(argv.length === 0 ? ['help'] : argv, {
    out: process.stdout,
    err: process.stderr,
    // A getter: reading process.stdin opens it (a socket for a pipe), which only approve and
    // `-f -` need.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    now: () => new Date(),
  });
  // No arguments is a usage error, after printing the commands.
  process.exitCode = argv.length === 0 ? 2 : code;
} catch (err) {
  process.stderr.write(`convoy: ${describeError(err)}\n`);
  process.exitCode = 2;
}
