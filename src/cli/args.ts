// The command line of `convoy` (and `kubectl convoy`): argv → one Command, or a usage error. Flags
// are the ones kubectl users expect (--kubeconfig, --context, -n, -A, -o) plus each command's own.
// Pure; `dev` is parsed by the entry point itself.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseDuration } from '../api/duration.ts';

export const OUTPUTS = ['table', 'yaml', 'json'] as const;
export type Output = (typeof OUTPUTS)[number];

export interface Global {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly allNamespaces: boolean;
  readonly output: Output;
  /** --show-secrets (diff, approve, render): print Secret values instead of masking them. */
  readonly showSecrets?: true;
}

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'get'; readonly global: Global; readonly name?: string }
  | { readonly kind: 'status'; readonly global: Global; readonly name: string }
  | { readonly kind: 'health'; readonly global: Global; readonly name: string }
  | { readonly kind: 'history'; readonly global: Global; readonly name: string }
  | {
      readonly kind: 'diff';
      readonly global: Global;
      readonly name: string;
      readonly from: DiffFrom;
    }
  | {
      readonly kind: 'render';
      readonly global: Global;
      readonly dir: string;
      readonly targetNamespace?: string;
      readonly substitute: Readonly<Record<string, string>>;
      readonly refOnly: boolean;
    }
  | {
      readonly kind: 'sync';
      readonly global: Global;
      readonly name: string;
      readonly force: boolean;
      readonly direct: boolean;
    }
  | {
      readonly kind: 'approve';
      readonly global: Global;
      readonly name: string;
      readonly yes: boolean;
      readonly direct: boolean;
    }
  | { readonly kind: 'pin'; readonly global: Global; readonly name: string; readonly renderRef: string }
  | { readonly kind: 'unpin'; readonly global: Global; readonly name: string }
  | { readonly kind: 'rollback'; readonly global: Global; readonly name: string }
  | {
      readonly kind: 'rulesEval';
      readonly rules: readonly string[];
      readonly objects: readonly string[];
      /** A directory of labelled fixtures to score instead of judging OBJECT files. */
      readonly expect?: string;
      readonly output: 'table' | 'json';
      readonly help?: boolean;
    }
  | {
      readonly kind: 'watch';
      readonly global: Global;
      readonly name: string;
      readonly timeoutMs?: number;
      readonly renderRef?: string;
    };

export type DiffFrom =
  | { readonly kind: 'current' }
  | { readonly kind: 'render'; readonly renderRef: string }
  | { readonly kind: 'dir'; readonly dir: string };

export type Parsed =
  | { readonly ok: true; readonly command: Command }
  | { readonly ok: false; readonly message: string };

export const USAGE = `usage: convoy <command> [flags]          (also: kubectl convoy <command>)

commands:
  get [NAME] | list              list Releases (namespace, name, cluster, revision, rollout, healthy, age)
  status NAME                    rollout, waves, hooks and conditions of a Release
  health NAME                    per-object health state and message
  history NAME                   applied renders and what the render store keeps
  diff NAME [--render REF | --dir DIR] [--show-secrets]
                                 what applying the render would change in the live objects
  render DIR [--target-namespace NS] [--substitute K=V]... [--ref-only] [--show-secrets]
                                 render a directory offline; prints YAML and its renderRef
  sync NAME [--force] [--direct] ask the controller to reconcile now
  approve NAME [--yes] [--direct] [--show-secrets]
                                 Manual mode: show the diff of the current render, then approve it
  pin NAME REF | unpin NAME      apply a stored render instead of the source / go back to the source
  rollback NAME                  pin the last healthy render
  rules eval [--rules FILE|default|library]... [-o json] OBJECT.yaml... | --expect DIR
                                 judge objects with health rules offline, or score labelled fixtures
  watch NAME [--timeout 10m] [--render REF]
                                 follow a rollout until it ends: exit 0 Succeeded, 1 Failed/RolledBack, 2 error
  dev [--nodes N] [--no-example] local control plane + convoy + an example rollout (Ctrl-C stops it)

flags:
  --kubeconfig PATH   --context NAME   -n, --namespace NS   -A, --all-namespaces
  -o, --output table|yaml|json
  Secret values are printed as *** unless --show-secrets is given (diff, approve, render).
`;

const GLOBAL_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const COMMAND_OPTIONS: Readonly<Record<string, ParseArgsConfig['options']>> = {
  diff: { render: { type: 'string' }, dir: { type: 'string' }, 'show-secrets': { type: 'boolean' } },
  render: {
    'show-secrets': { type: 'boolean' },
    'target-namespace': { type: 'string' },
    substitute: { type: 'string', multiple: true },
    'ref-only': { type: 'boolean' },
  },
  sync: { force: { type: 'boolean' }, direct: { type: 'boolean' } },
  approve: {
    yes: { type: 'boolean', short: 'y' },
    direct: { type: 'boolean' },
    'show-secrets': { type: 'boolean' },
  },
  watch: { timeout: { type: 'string' }, render: { type: 'string' } },
};

function fail(message: string): Parsed {
  return { ok: false, message };
}

export function parseCommand(argv: readonly string[]): Parsed {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') {
    return { ok: true, command: { kind: 'help' } };
  }
  if (verb === 'rules') return parseRules(rest);
  const cmd = verb === 'list' ? 'get' : verb;
  const known = [
    'get',
    'status',
    'health',
    'history',
    'diff',
    'render',
    'sync',
    'approve',
    'pin',
    'unpin',
    'rollback',
    'watch',
  ];
  if (!known.includes(cmd)) return fail(`unknown command "${verb}"`);
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...rest],
      options: { ...GLOBAL_OPTIONS, ...COMMAND_OPTIONS[cmd] },
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] });
  } catch (err) {
    return fail(`${verb}: ${(err as Error).message}`);
  }
  if (values.help === true) return { ok: true, command: { kind: 'help' } };
  const output = (values.output as string | undefined) ?? 'table';
  if (!(OUTPUTS as readonly string[]).includes(output)) {
    return fail(`${verb}: --output must be one of ${OUTPUTS.join(', ')}, got "${output}"`);
  }
  const global: Global = {
    kubeconfig: values.kubeconfig as string | undefined,
    context: values.context as string | undefined,
    namespace: values.namespace as string | undefined,
    allNamespaces: values['all-namespaces'] === true,
    output: output as Output,
    ...(values['show-secrets'] === true ? { showSecrets: true as const } : {}),
  };
  if (global.allNamespaces && cmd !== 'get') return fail(`${verb}: -A/--all-namespaces only applies to get`);
  const want = (n: number, what: string): string | undefined =>
    positionals.length === n ? undefined : `${verb}: expected ${what}, got ${positionals.length} arguments`;
  const name = positionals[0] ?? '';
  switch (cmd) {
    case 'get': {
      if (positionals.length > 1) return fail(`${verb}: expected at most one NAME`);
      if (global.allNamespaces && positionals.length === 1)
        return fail(`${verb}: a NAME cannot be used with -A`);
      return { ok: true, command: { kind: 'get', global, ...(positionals[0] ? { name } : {}) } };
    }
    case 'status':
    case 'health':
    case 'history':
    case 'unpin':
    case 'rollback': {
      const e = want(1, 'NAME');
      return e === undefined ? { ok: true, command: { kind: cmd, global, name } } : fail(e);
    }
    case 'pin': {
      const e = want(2, 'NAME and REF');
      if (e !== undefined) return fail(e);
      const ref = positionals[1] ?? '';
      if (!/^sha256:[0-9a-f]{64}$/.test(ref)) {
        return fail(`pin: REF must be sha256: followed by 64 hex digits, got "${ref}"`);
      }
      return { ok: true, command: { kind: 'pin', global, name, renderRef: ref } };
    }
    case 'diff': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      const render = values.render as string | undefined;
      const dir = values.dir as string | undefined;
      if (render !== undefined && dir !== undefined)
        return fail('diff: --render and --dir exclude each other');
      const from: DiffFrom =
        render !== undefined
          ? { kind: 'render', renderRef: render }
          : dir !== undefined
            ? { kind: 'dir', dir }
            : { kind: 'current' };
      return { ok: true, command: { kind: 'diff', global, name, from } };
    }
    case 'render': {
      const e = want(1, 'DIR');
      if (e !== undefined) return fail(e);
      const substitute: Record<string, string> = {};
      for (const kv of (values.substitute as string[] | undefined) ?? []) {
        const eq = kv.indexOf('=');
        if (eq <= 0) return fail(`render: --substitute takes NAME=value, got "${kv}"`);
        substitute[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
      const tn = values['target-namespace'] as string | undefined;
      return {
        ok: true,
        command: {
          kind: 'render',
          global,
          dir: name,
          substitute,
          refOnly: values['ref-only'] === true,
          ...(tn === undefined ? {} : { targetNamespace: tn }),
        },
      };
    }
    case 'sync': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      return {
        ok: true,
        command: { kind: 'sync', global, name, force: values.force === true, direct: values.direct === true },
      };
    }
    case 'approve': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      return {
        ok: true,
        command: { kind: 'approve', global, name, yes: values.yes === true, direct: values.direct === true },
      };
    }
    case 'watch': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      const t = values.timeout as string | undefined;
      let timeoutMs: number | undefined;
      if (t !== undefined) {
        let d = Number.NaN;
        try {
          d = parseDuration(t);
        } catch {}
        if (!(d > 0)) return fail(`watch: --timeout must be a duration like 10m, got "${t}"`);
        timeoutMs = d;
      }
      const r = values.render as string | undefined;
      return {
        ok: true,
        command: {
          kind: 'watch',
          global,
          name,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(r === undefined ? {} : { renderRef: r }),
        },
      };
    }
    default:
      return fail(`unknown command "${verb}"`);
  }
}

export const RULES_EVAL_USAGE = `usage: convoy rules eval [--rules FILE|default|library]... [-o table|json] OBJECT.yaml...
       convoy rules eval [--rules FILE|default|library]... [-o table|json] --expect DIR

Judges Kubernetes objects with health rules, offline, exactly as the observer does.

  --rules SOURCE   a file of HealthRuleSet / GlobalHealthRuleSet manifests, "default" (convoy's
                   default rules) or "library" (the rule library, one rule set per API group);
                   repeat to combine. Without --rules: default and library.
  --expect DIR     score a directory of labelled fixtures instead: DIR/cases.json (entries with
                   file and expected), or each file labelled by its name's first word
                   (healthy, progressing, degraded, suspended, missing, unknown; e.g.
                   degraded-no-secret.yaml). Healthy must pass, Progressing and Degraded fail;
                   Suspended is shown apart, Missing and Unknown are left out.
  -o, --output     table (default) or json
  -h, --help       this help

OBJECT files may hold several YAML documents or a List; - reads stdin. A file that does not parse
is reported with its line and column and the other files are still judged.

Exit codes: 0 every object passes (with --expect: every scored fixture agrees); 1 some object
fails or errors (with --expect: a disagreement or an evaluation error); 2 a rule does not
compile, an input is not valid, or a usage error.
`;

function parseRules(rest: readonly string[]): Parsed {
  const [sub, ...args] = rest;
  if (sub === '--help' || sub === '-h') return rulesHelp();
  if (sub !== 'eval') return fail(`rules: unknown subcommand "${sub ?? ''}" (try: rules eval)`);
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      options: {
        rules: { type: 'string', multiple: true },
        expect: { type: 'string' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] });
  } catch (err) {
    return fail(`rules eval: ${(err as Error).message}`);
  }
  if (values.help === true) return rulesHelp();
  const rules = (values.rules as string[] | undefined) ?? ['default', 'library'];
  const output = (values.output as string | undefined) ?? 'table';
  if (output !== 'table' && output !== 'json') {
    return fail(`rules eval: --output must be table or json, got "${output}"`);
  }
  const expect = values.expect as string | undefined;
  if (expect !== undefined && positionals.length > 0)
    return fail('rules eval: --expect DIR scores a directory; do not name OBJECT files as well');
  if (expect === undefined && positionals.length === 0)
    return fail('rules eval: name at least one OBJECT.yaml (- reads stdin), or --expect DIR');
  return {
    ok: true,
    command: {
      kind: 'rulesEval',
      rules,
      objects: positionals,
      output,
      ...(expect === undefined ? {} : { expect }),
    },
  };
}

function rulesHelp(): Parsed {
  return { ok: true, command: { kind: 'rulesEval', rules: [], objects: [], output: 'table', help: true } };
}
