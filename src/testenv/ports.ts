// Free loopback ports: bind port 0, read what the kernel chose, release it. Another process
// can take the port before ours binds it, so callers retry a start that fails with
// "address already in use" (see isAddressInUse).
import { createServer } from 'node:net';

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
