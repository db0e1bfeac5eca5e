// `convoy <command>`: parses the command line, builds the context and runs one command. Errors a user
// can act on print as one line; exit codes: 0 ok, 1 a negative answer (diff found changes, watch saw a
// failure, approval declined), 2 usage and other errors.
import { isKubeError } from '../kube/errors.ts';
import { parseCommand, USAGE } from './args.ts';
import * as diffCmd from './commands/diff.ts';
import * as offline from './commands/offline.ts';
import * as read from './commands/read.ts';
import * as watchCmd from './commands/watch.ts';
import * as write from './commands/write.ts';
import { type Io, makeCtx, UserError } from './context.ts';

export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parseCommand(argv);
  if (!parsed.ok) {
    io.err.write(`convoy: ${parsed.message}\nrun "convoy help" for the commands and flags\n`);
    return 2;
  }
  const c = parsed.command;
  try {
    switch (c.kind) {
      case 'help':
        io.out.write(USAGE);
        return 0;
      case 'render':
        return await offline.render(io, {
          dir: c.dir,
          substitute: c.substitute,
          refOnly: c.refOnly,
          output: c.global.output,
          showSecrets: c.global.showSecrets === true,
          ...(c.targetNamespace === undefined ? {} : { targetNamespace: c.targetNamespace }),
        });
      case 'rulesEval':
        return await offline.rules(io, c);
      default:
        break;
    }
    const ctx = makeCtx(c.global, io);
    switch (c.kind) {
      case 'get':
        return await read.get(ctx, c.name);
      case 'status':
        return await read.status(ctx, c.name);
      case 'health':
        return await read.health(ctx, c.name);
      case 'history':
        return await read.history(ctx, c.name);
      case 'diff':
        return await diffCmd.diff(ctx, c.name, c.from);
      case 'sync':
        return await write.sync(ctx, c.name, c.force, c.direct);
      case 'approve':
        return await write.approve(ctx, c.name, c.yes, c.direct);
      case 'pin':
        return await write.pin(ctx, c.name, c.renderRef);
      case 'unpin':
        return await write.unpin(ctx, c.name);
      case 'rollback':
        return await write.rollback(ctx, c.name);
      case 'watch':
        return await watchCmd.watch(ctx, c.name, c.timeoutMs, c.renderRef);
      default:
        return assertNever(c);
    }
  } catch (err) {
    io.err.write(`convoy: ${describeError(err)}\n`);
    return 2;
  }
}

function describeError(err: unknown): string {
  if (err instanceof UserError) return err.message;
  if (isKubeError(err)) return err.apiMessage;
  return err instanceof Error ? err.message : String(err);
}

function assertNever(x: never): never {
  throw new Error(`unexpected command: ${JSON.stringify(x)}`);
}
