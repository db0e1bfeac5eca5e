// Every way `convoy dev` can be told to stop ends in the same cleanup: Ctrl-C (SIGINT), a process
// manager (SIGTERM), a closed terminal or tmux window (SIGHUP), and its output going away (EPIPE once
// `tee` or a pager has exited, EIO on a hung-up terminal). Without a listener a signal kills the process
// before its `finally` runs, and an unhandled write error on stdout throws half-way through the
// cleanup; either way controller-manager and observer (own process groups) were left running.

/** The signals that stop `convoy dev`, each handled the same way. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface DevStop {
  /** Aborts on the first signal or output error. */
  readonly signal: AbortSignal;
  /** What stopped it ('SIGHUP', 'output closed (EPIPE)'), once something has. */
  reason(): string | undefined;
  /** Writes a line to the output while it is open; a no-op once it has failed. */
  say(line: string): void;
  /** Removes the signal listeners (after the cleanup). */
  dispose(): void;
}

interface SignalSource {
  on(signal: (typeof STOP_SIGNALS)[number], listener: () => void): unknown;
  off(signal: (typeof STOP_SIGNALS)[number], listener: () => void): unknown;
}

/**
 * Listens for the stop signals on `proc` and for errors on `outputs` (stdout, stderr). The first one
 * aborts `signal`; an output that failed is not written to again.
 */
export function watchStop(outputs: readonly NodeJS.WritableStream[], proc: SignalSource = process): DevStop {
  const stop = new AbortController();
  let why: string | undefined;
  const closed = new Set<NodeJS.WritableStream>();
  const abort = (reason: string) => {
    why ??= reason;
    stop.abort();
  };
  const onSignal = STOP_SIGNALS.map((name) => [name, () => abort(name)] as const);
  for (const [name, fn] of onSignal) proc.on(name, fn);
  // These listeners stay after dispose(): a write queued when the output closed reports its error
  // later, and an 'error' without a listener throws.
  for (const out of outputs)
    out.on('error', (err: NodeJS.ErrnoException) => {
      closed.add(out);
      abort(`output closed (${err.code ?? err.message})`);
    });
  const main = outputs[0];
  return {
    signal: stop.signal,
    reason: () => why,
    say(line) {
      if (main === undefined || closed.has(main)) return;
      main.write(`${line}\n`);
    },
    dispose() {
      for (const [name, fn] of onSignal) proc.off(name, fn);
    },
  };
}
