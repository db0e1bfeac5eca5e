// Free loopback ports: bind port 0, read what the kernel chose, release it. Another process
// can take the port before ours binds it, so callers retry a start that fails with
// "address already in use": startOnFreePorts starts again on new ones.
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { errorMessage } from '../lib/errors.ts';
import { type Proc, ProcessExitedError } from './proc.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** Distinct free ports (the kernel may hand the same one out twice after a close). */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

export const isAddressInUse = (log: string): boolean => /address already in use/i.test(log);

const PORT_ATTEMPTS = 3;

/**
 * Runs `start` on `count` fresh ports; when the process it started exited because another process
 * took one of them first, removes that process's log, tells `onClash` and starts again on new ports.
 */
export async function startOnFreePorts<T>(
  count: number,
  start: (ports: number[]) => Promise<T>,
  onClash: (proc: Proc) => void = () => {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports = await freePorts(count);
    try {
      return await start(ports);
    } catch (err) {
      const retry =
        err instanceof ProcessExitedError &&
        attempt < PORT_ATTEMPTS &&
        isAddressInUse(await readLog(err.proc.logPath));
      if (!retry) throw err;
      onClash(err.proc);
      await rm(err.proc.logPath, { force: true });
    }
  }
}

async function readLog(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    return `(the log ${path} could not be read: ${errorMessage(err)})`;
  }
}
