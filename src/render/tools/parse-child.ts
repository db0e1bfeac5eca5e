// The parse child's entry (started by parse-off-thread.ts): parses one tool output in a process of
// its own, so YAML parsing of a large render (seconds of CPU, and a heap of garbage many times the
// output's size) neither blocks the controller's event loop nor stays in its memory: the child's
// memory goes back to the system when it exits (docs/design.md#large-renders). It gets the job in its
// first message and the output on stdin; the manifests go back in batches, each when the parent asks.
import { assertNever } from '../../lib/assert-never.ts';
import { approxJsonBytes } from '../cache.ts';
import type { Manifest } from '../types.ts';
import { type ParseAsk, type ParseReply, runParseJob } from './parse-job.ts';

const send = (m: ParseReply) => {
  if (process.send === undefined)
    throw new Error('parse-child.ts runs as a child with IPC (parse-off-thread.ts)');
  process.send(m);
};

let batches: Manifest[][] = [];

/** The tool's output (or Plain's files): all of stdin. */
async function readInput(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function start(ask: Extract<ParseAsk, { type: 'parse' }>): Promise<void> {
  const result = runParseJob(ask.job, await readInput());
  if (!result.ok) {
    send({ type: 'failed', problems: result.problems });
    return;
  }
  let batch: Manifest[] = [];
  let bytes = 0;
  for (const m of result.value) {
    batch.push(m);
    bytes += approxJsonBytes(m.object);
    if (bytes >= ask.batchBytes) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  next();
}

function next(): void {
  const [b, ...rest] = batches;
  batches = rest;
  send(b === undefined ? { type: 'done' } : { type: 'batch', manifests: b });
  if (b === undefined) process.disconnect();
}

process.on('message', (ask: ParseAsk) => {
  switch (ask.type) {
    case 'parse':
      void start(ask);
      return;
    case 'more':
      next();
      return;
    default:
      assertNever(ask);
  }
});
