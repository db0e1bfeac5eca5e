// ${NAME} substitution from render.substitute, made on the text of each file before it is parsed
// (like Flux's post-build substitution), so a value may land anywhere, in keys and strings alike.
import type { Problem } from './errors.ts';
import { type Checked, fail, ok } from './result.ts';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `$${` is an escape for a literal `${`; `${NAME}` takes the variable; `${NAME:=default}` takes it or
 * the default (which cannot hold `}` or a line break). A variable with no value and no default is
 * left as written, so shell snippets in ConfigMaps keep their `${HOME}`. One pass: a value that
 * contains `${X}` is not expanded again.
 */
const PATTERN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::=([^}\n]*))?\}/g;

export function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(PATTERN, (match: string, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${';
    if (Object.hasOwn(vars, name)) return vars[name] as string;
    return fallback ?? match;
  });
}

/** Names must be usable in `${NAME}`, else the variable could never be referenced. */
export function checkVariables(
  vars: Readonly<Record<string, string>>,
): Checked<Readonly<Record<string, string>>> {
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(vars)) {
    if (!NAME.test(name)) {
      problems.push({
        where: 'spec.render.substitute',
        message: `variable name ${JSON.stringify(name)} is invalid: use letters, digits and _, not starting with a digit`,
      });
    } else if (typeof value !== 'string') {
      problems.push({ where: 'spec.render.substitute', message: `variable ${name} must be a string` });
    }
  }
  return problems.length === 0 ? ok(vars) : fail(problems);
}
