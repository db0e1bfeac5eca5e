// The command-line grammar both convoy processes share: `--flag value`, `--flag=value`, booleans that may
// stand alone, every flag `--foo-bar` backed by the variable CONVOY_FOO_BAR (a flag wins; an empty
// variable counts as unset), `-h`/`--help`, and errors that name the flag — an unknown one together with
// the flag meant. Pure: the entry points pass argv and the environment in.
import { DurationError, parseDuration } from '../api/duration.ts';

export interface FlagSpec {
  /** Placeholder of the value in the usage text; absent for a boolean, which may stand alone. */
  readonly arg?: string;
  /** Used when neither the flag nor its variable is given (and shown in the usage text). */
  readonly default?: string;
  readonly help: string;
  /** The variable behind the flag when it is not CONVOY_<FLAG>; false: none. */
  readonly env?: string | false;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** A bad command line or environment: the entry point prints it with a pointer to --help and exits 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}

/**
 * Names convoy no longer accepts, with what replaced them: the two processes used to spell the same
 * settings differently. Nothing was released with the old names, but a stale script should say why
 * it fails rather than run with a default (a wrong shard count splits the work wrongly).
 */
export const RENAMED_FLAGS: Readonly<Record<string, string>> = {
  shards: 'shard-count',
  'lease-seconds': 'lease-duration',
  'metrics-port': 'metrics-bind-address',
};
export const RENAMED_ENV: Readonly<Record<string, string>> = {
  CONVOY_SHARDS: 'CONVOY_SHARD_COUNT',
  CONVOY_LEASE_SECONDS: 'CONVOY_LEASE_DURATION',
  CONVOY_LEASE_DURATION_SECONDS: 'CONVOY_LEASE_DURATION',
  CONVOY_METRICS_PORT: 'CONVOY_METRICS_BIND_ADDRESS',
  CONVOY_RESYNC_MS: 'CONVOY_RESYNC',
};

export type Env = Readonly<Record<string, string | undefined>>;

export function envOf(flag: string, spec: FlagSpec | undefined): string | undefined {
  if (spec?.env === false) return undefined;
  return spec?.env ?? `CONVOY_${flag.toUpperCase().replaceAll('-', '_')}`;
}

export type ParsedArgs =
  | { readonly kind: 'help' }
  | { readonly kind: 'flags'; readonly given: ReadonlyMap<string, string> };

/**
 * Splits argv into flag values. `alsoKnown` are flags another parser of the same process takes (they are
 * not accepted here, but an unknown flag close to one of them is suggested).
 */
export function parseArgv(
  argv: readonly string[],
  table: FlagTable,
  alsoKnown: readonly string[] = [],
): ParsedArgs {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const spec = table[name];
    if (spec === undefined) throw new FlagError(unknownFlag(name, [...Object.keys(table), ...alsoKnown]));
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (spec.arg === undefined) value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`--${name} needs a value (${spec.arg})`);
      }
    }
    given.set(name, value);
  }
  return { kind: 'flags', given };
}

/** The message for an unknown flag: what replaced it, or the nearest known name. */
export function unknownFlag(name: string, known: readonly string[]): string {
  const renamed = RENAMED_FLAGS[name];
  if (renamed !== undefined && known.includes(renamed)) {
    return `unknown flag --${name}: it is now --${renamed}`;
  }
  const near = nearest(name, known);
  return near === undefined ? `unknown flag --${name}` : `unknown flag --${name}: did you mean --${near}?`;
}

function nearest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = k.startsWith(name) || name.startsWith(k) ? 1 : editDistance(name, k);
    if (best === undefined || d < best.d) best = { name: k, d };
  }
  // Beyond a third of the name it is a different word, not a typo.
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** Rejects a variable that was renamed, so it is not silently ignored. */
export function rejectRenamedEnv(env: Env): void {
  for (const [old, now] of Object.entries(RENAMED_ENV)) {
    if (env[old] !== undefined && env[old] !== '') {
      throw new FlagError(`${old} is no longer read: set ${now} instead`);
    }
  }
}

/** A flag's value: the flag, else its variable (empty = unset), else the table's default. */
export function flagValue(
  table: FlagTable,
  given: ReadonlyMap<string, string>,
  env: Env,
  flag: string,
): string | undefined {
  const spec = table[flag];
  const name = envOf(flag, spec);
  const fromEnv = name === undefined || env[name] === '' ? undefined : env[name];
  return given.get(flag) ?? fromEnv ?? spec?.default;
}

/** The flags of one command line, each read as flagValue finds it. */
export interface FlagReader {
  readonly given: ReadonlyMap<string, string>;
  get(flag: string): string | undefined;
  /** The value of a flag with a default (a table without one is a bug). */
  need(flag: string): string;
  /** need(flag) through `convert`, which names the flag `what` in its errors. */
  parse<T>(flag: string, convert: (what: string, v: string) => T): T;
  /** describeFlag */
  describe(flag: string): string;
}

export function flagReader(table: FlagTable, given: ReadonlyMap<string, string>, env: Env): FlagReader {
  const get = (flag: string) => flagValue(table, given, env, flag);
  const need = (flag: string): string => {
    const v = get(flag);
    if (v === undefined) throw new Error(`flag table without a default for --${flag}`);
    return v;
  };
  return {
    given,
    get,
    need,
    parse: (flag, convert) => convert(describeFlag(table, flag), need(flag)),
    describe: (flag) => describeFlag(table, flag),
  };
}

/** How a value is named in an error: the flag, and its variable when there is one. */
export function describeFlag(table: FlagTable, flag: string): string {
  const name = envOf(flag, table[flag]);
  return name === undefined ? `--${flag}` : `--${flag} (${name})`;
}

export function toInt(what: string, v: string, min: number): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) {
    throw new FlagError(`${what} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** A duration that must be above zero (a limit of 0 would fail everything at once). */
export function positiveMs(what: string, v: string): number {
  const ms = durationMs(what, v);
  if (ms <= 0) throw new FlagError(`${what} must be above 0, got ${JSON.stringify(v)}`);
  return ms;
}

export function durationMs(what: string, v: string): number {
  try {
    const ms = parseDuration(v);
    if (ms < 0) throw new DurationError('negative');
    return ms;
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new FlagError(`${what} must be a Go duration like 15s or 1m30s, got ${JSON.stringify(v)}`);
  }
}

export function toBool(what: string, v: string): boolean {
  const s = v.toLowerCase();
  if (['1', 'true', 'yes'].includes(s)) return true;
  if (['0', 'false', 'no'].includes(s)) return false;
  throw new FlagError(`${what} must be true or false, got ${JSON.stringify(v)}`);
}

export interface BindAddress {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, `:port` (every IPv4 interface, 0.0.0.0) or `[v6]:port`; undefined when it is none. */
export function parseHostPort(v: string): BindAddress | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v);
  const port = Number(m?.[3]);
  if (m === null || !Number.isInteger(port) || port > 65535) return undefined;
  return { host: m[1] ?? (m[2] === '' || m[2] === undefined ? '0.0.0.0' : m[2]), port };
}

export function toBindAddress(what: string, v: string): BindAddress {
  const b = parseHostPort(v);
  if (b === undefined) {
    throw new FlagError(
      `${what} must be host:port (127.0.0.1:8080; :8080 for every interface; [::]:8080; port 0 = any free port), got ${JSON.stringify(v)}`,
    );
  }
  return b;
}

/** The usage text of a process: its flags, their variables and defaults. */
export function usage(program: string, table: FlagTable, footer = ''): string {
  const rows = Object.entries(table).map(([flag, spec]) => {
    const left = `  --${flag}${spec.arg === undefined ? '' : ` ${spec.arg}`}`;
    const env = envOf(flag, spec);
    const notes = [env === undefined ? undefined : `env ${env}`, spec.default && `default ${spec.default}`]
      .filter((s) => s !== undefined && s !== '')
      .join(', ');
    return `${left.padEnd(34)} ${spec.help}${notes === '' ? '' : ` (${notes})`}`;
  });
  return `usage: ${program} [flags]\n\n${rows.join('\n')}\n${footer}`;
}
