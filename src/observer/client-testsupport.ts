// For the observer's orchestration tests: a KubeClient that records every request it is asked to send,
// and either answers none (each request goes to `answer`, by default failing: no server) or sends it to
// the real API server of `kubeConfig`; and a logger whose lines a test can read.

import { Writable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type RawRequest } from '../kube/client.ts';
import { unreachableKubeConfig } from '../kube/testsupport.ts';
import { type Logger, newLogger } from '../runtime/index.ts';

/** The requests a RecordingClient was asked to send, in order. */
export type Recorded = { readonly method: string; readonly path: string }[];

export class RecordingClient extends KubeClient {
  readonly requests: Recorded = [];
  readonly #answer: ((req: RawRequest) => Promise<unknown>) | undefined;

  /** With `kubeConfig`, requests go to its API server; without one, to `answer` (default: they fail). */
  constructor(
    opts: { readonly kubeConfig?: KubeConfig; readonly answer?: (req: RawRequest) => Promise<unknown> } = {},
  ) {
    super(opts.kubeConfig ?? unreachable());
    this.#answer = opts.kubeConfig === undefined ? (opts.answer ?? failing) : opts.answer;
  }

  override async request<T = unknown>(req: RawRequest): Promise<T> {
    this.requests.push({ method: req.method, path: req.path });
    return this.#answer === undefined ? await super.request<T>(req) : ((await this.#answer(req)) as T);
  }
}

const unreachable = unreachableKubeConfig;

async function failing(req: RawRequest): Promise<never> {
  throw new Error(`${req.method} ${req.path}: no API server in this test`);
}

/** A debug-level logger and the lines it wrote, parsed. */
export function recordingLogger(): { readonly log: Logger; readonly lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { log: newLogger('test', sink, 'debug'), lines };
}
