// `convoy <command>`: parses the command line and runs one command. help and the reads that must start
// fast (get of Releases, status, health, history) run here; every other command is in run.ts, imported
// only then. The CLI bundle keeps this split (src/cli/bundle.ts): this file and what it imports are one
// file Node loads at once, run.ts and its commands are chunks loaded on demand. Errors print as one line
// (errors.ts); exit codes: 0 ok, 1 a negative answer (diff found changes, watch saw a failure, approval
// declined), 2 usage and other errors.

import { assertNever } from '../lib/assert-never.ts';
import { type Command, parseCommand } from './args.ts';
import type { Io } from './context.ts';
import { describeError } from './errors.ts';
import { commandHelp, findCommand, usageText } from './registry.ts';
import type { RunCommand } from './run.ts';

/** The commands runCli runs itself: help and the reads of bench:cli's start-up budget. */
type FastCommand =
  | Extract<Command, { kind: 'help' | 'status' | 'health' | 'history' }>
  | (Extract<Command, { kind: 'get' }> & { readonly resource?: undefined });

/** Whether runCli runs the command itself or hands it to run.ts. */
function route(c: Command): { readonly fast: FastCommand } | { readonly rest: RunCommand } {
  switch (c.kind) {
    case 'help':
    case 'status':
    case 'health':
    case 'history':
      return { fast: c };
    case 'get': {
      const { resource, ...get } = c;
      return resource === undefined ? { fast: get } : { rest: { ...get, resource } };
    }
    default:
      return { rest: c };
  }
}

export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parseCommand(argv);
  if (!parsed.ok) {
    const more = parsed.command === undefined ? 'convoy help' : `convoy ${parsed.command} --help`;
    io.err.write(`convoy: ${parsed.message}\nrun "${more}" for the arguments and flags\n`);
    return 2;
  }
  const r = route(parsed.command);
  // run.ts catches and prints its own errors: in the bundle it is a separate copy of the CLI, whose
  // UserError is not this one's.
  if ('rest' in r) return (await import('./run.ts')).runCommand(r.rest, io);
  try {
    return await runFast(r.fast, io);
  } catch (err) {
    io.err.write(`convoy: ${describeError(err)}\n`);
    return 2;
  }
}

async function runFast(c: FastCommand, io: Io): Promise<number> {
  if (c.kind === 'help') {
    const spec = c.topic === undefined ? undefined : findCommand(c.topic.split(' '));
    io.out.write(spec === undefined ? usageText() : commandHelp(spec));
    return 0;
  }
  // The reads talk to nothing but the API server: the process trusts only its CA (trust.ts).
  const ctx = await (await import('./context.ts')).makeCtx(c.global, io, true);
  const read = await import('./commands/read.ts');
  switch (c.kind) {
    case 'get':
      return await read.get(ctx, {
        ...(c.name === undefined ? {} : { name: c.name }),
        ...(c.labelSelector === undefined ? {} : { labelSelector: c.labelSelector }),
        ...(c.statusSelector === undefined ? {} : { statusSelector: c.statusSelector }),
      });
    case 'status':
      return await read.status(ctx, c.name);
    case 'health':
      return await read.health(ctx, c.name);
    case 'history':
      return await read.history(ctx, c.name);
    default:
      return assertNever(c);
  }
}
