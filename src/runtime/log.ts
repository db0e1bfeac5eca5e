// JSON logs (pino). Every line about a key comes from forKey(), so it carries the `key` field.
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

export function newLogger(name: string, destination?: DestinationStream, level = 'info'): Logger {
  const opts = { name, level, base: { pid: process.pid } };
  return destination === undefined ? pino(opts) : pino(opts, destination);
}

export function forKey(log: Logger, controller: string, key: string): Logger {
  return log.child({ controller, key });
}
