// `{{args.<name>}}` in a check's query, URL, headers and body (Argo Rollouts' spelling, spaces allowed
// inside the braces). Two renderings: the one sent, and the one shown in status, messages and logs, in
// which a secret-valued arg stays a placeholder, so a Secret's value is never printed
// (docs/design.md#verification).

/** An arg's value; `secret` when it came from a Secret (shown as its placeholder). */
export interface ArgValue {
  readonly value: string;
  readonly secret: boolean;
}

export type ResolvedArgs = ReadonlyMap<string, ArgValue>;

export type Substituted =
  | { readonly ok: true; readonly text: string; readonly shown: string }
  | { readonly ok: false; readonly message: string };

const PLACEHOLDER = /\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}/g;

/** The names of the args `template` refers to, in order of first use. */
export function argNames(template: string): readonly string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (m) => m[1] as string))];
}

/** Replaces every `{{args.<name>}}`; an arg that is not in `args` is refused by name. */
export function substituteArgs(template: string, args: ResolvedArgs): Substituted {
  const unknown = argNames(template).filter((n) => !args.has(n));
  if (unknown.length > 0) {
    return { ok: false, message: `unknown arg${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}` };
  }
  const render = (shown: boolean) =>
    template.replace(PLACEHOLDER, (_, name: string) => {
      const a = args.get(name) as ArgValue;
      return shown && a.secret ? `{{args.${name}}}` : a.value;
    });
  return { ok: true, text: render(false), shown: render(true) };
}

/** `text` with every secret value it may hold replaced by `***` (for provider errors that echo input). */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  return out;
}
