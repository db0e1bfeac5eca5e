// Text building blocks of the CLI's human output: kubectl-style tables, ages ("5m", "2d"), short
// renderRefs and colour that is applied only when the output is a terminal. Pure.
import { assertNever } from '../lib/assert-never.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import type { StateTone } from '../server/release-state.ts';

/** Columns separated by three spaces, like kubectl; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const cols = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, i) =>
    Math.max(0, ...rows.map((r) => visibleLength(r[i] ?? ''))),
  );
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visibleLength(c))))
      .join('   ')
      .trimEnd(),
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what this strips
const ANSI = /\x1b\[[0-9;]*m/g;

/** Length as shown on a terminal: colour escapes take no room. */
export function visibleLength(s: string): number {
  return s.replace(ANSI, '').length;
}

/** kubectl's AGE column (its HumanDuration rules); a time in the future (clock skew) shows "0s". */
export function age(from: string | undefined, now: Date): string {
  if (from === undefined || from === '') return '<unknown>';
  const t = Date.parse(from);
  if (Number.isNaN(t)) return '<invalid>';
  return duration(Math.max(0, now.getTime() - t));
}

/** A duration in kubectl's short form: "45s", "3m10s", "12m", "5h3m", "2d", "400d", "3y12d". */
export function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (d < 365 * 8 && d % 365 !== 0) return `${y}y${d % 365}d`;
  return `${y}y`;
}

/** "sha256:0123456789ab" — enough to tell renders apart in a table. */
export function shortRef(ref: string | undefined): string {
  if (ref === undefined || ref === '') return '-';
  return ref.startsWith('sha256:') ? ref.slice(0, 'sha256:'.length + 12) : ref;
}

/** The order of kubectl get: by namespace, then name. */
export function byNamespaceName(
  a: { readonly metadata: { readonly namespace?: string; readonly name?: string } },
  b: { readonly metadata: { readonly namespace?: string; readonly name?: string } },
): number {
  return namespaceOf(a).localeCompare(namespaceOf(b)) || nameOf(a).localeCompare(nameOf(b));
}

export function dash(s: string | undefined): string {
  return s === undefined || s === '' ? '-' : s;
}

export type Style = 'green' | 'red' | 'yellow' | 'dim' | 'bold';

const CODES: Readonly<Record<Style, string>> = {
  green: '32',
  red: '31',
  yellow: '33',
  dim: '2',
  bold: '1',
};

/** Wraps `text` in an ANSI colour only when `enabled` (a TTY without NO_COLOR). */
export function paint(style: Style | undefined, text: string, enabled: boolean): string {
  return enabled && style !== undefined ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text;
}

/** The colour a state word gets: success green, failure red, in between yellow. */
export function styleOf(state: string): Style | undefined {
  switch (state) {
    case 'Succeeded':
    case 'Healthy':
    case 'True':
    case 'Synced':
      return 'green';
    case 'Failed':
    case 'RolledBack':
    case 'Degraded':
    case 'False':
      return 'red';
    case 'Progressing':
    case 'Running':
    case 'Unknown':
    case 'Pending':
      return 'yellow';
    default:
      return undefined;
  }
}

/** The colour of a releaseState tone: calm (a person or a gate holds it) gets none, as it needs no alarm. */
export function styleOfTone(tone: StateTone): Style | undefined {
  switch (tone) {
    case 'ok':
      return 'green';
    case 'bad':
      return 'red';
    case 'busy':
      return 'yellow';
    case 'calm':
      return undefined;
    default:
      return assertNever(tone);
  }
}

export function paintState(state: string, enabled: boolean): string {
  return paint(styleOf(state), state, enabled);
}

/** Whether to colour: a TTY, and neither NO_COLOR nor TERM=dumb (https://no-color.org). */
export function colourEnabled(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>) {
  return isTTY === true && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
}
