// The command line of `convoy` (and `kubectl convoy`): argv → one Command, or a usage error in one
// line. Flags come from the registry (registry.ts), so `--help` shows exactly what is parsed. Pure;
// `dev` is handed its own arguments (dev.ts parses them).
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseDuration } from '../api/duration.ts';
import { CLUSTER_FLAGS, type CommandSpec, type FlagSpec, findCommand, HELP_FLAG } from './registry.ts';

export const OUTPUTS = ['table', 'yaml', 'json'] as const;
export type Output = (typeof OUTPUTS)[number];

export interface Global {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly allNamespaces: boolean;
  readonly output: Output;
  /** --show-secrets (diff, approve, sync --approve, render): print Secret values instead of masking them. */
  readonly showSecrets?: true;
}

/** A status filter of `get --status-selector`. */
export interface StatusSelector {
  readonly ready?: string;
  readonly healthy?: string;
  readonly rollout?: string;
  readonly suspended?: boolean;
}

type Named<K extends string> = { readonly kind: K; readonly global: Global; readonly name: string };

export type NotifyResource = 'alerts' | 'providers' | 'receivers';

/** The words `get` takes before NAME for the notification kinds (kubectl's plural, singular, short). */
export const GET_RESOURCES: Readonly<Record<string, NotifyResource | 'releases'>> = {
  alerts: 'alerts',
  alert: 'alerts',
  providers: 'providers',
  provider: 'providers',
  receivers: 'receivers',
  receiver: 'receivers',
  releases: 'releases',
  release: 'releases',
};

export type Command =
  | { readonly kind: 'help'; readonly topic?: string }
  | {
      readonly kind: 'get';
      readonly global: Global;
      /** `get alerts|providers|receivers`; absent: Releases. */
      readonly resource?: NotifyResource;
      readonly name?: string;
      readonly labelSelector?: string;
      readonly statusSelector?: StatusSelector;
    }
  | Named<'status'>
  | Named<'health'>
  | Named<'tree'>
  | Named<'history'>
  | Named<'events'>
  | (Named<'logs'> & { readonly hook: string; readonly tail?: number })
  | (Named<'diff'> & { readonly from: DiffFrom })
  | {
      readonly kind: 'render';
      readonly global: Global;
      readonly dir: string;
      readonly targetNamespace?: string;
      readonly substitute: Readonly<Record<string, string>>;
      readonly refOnly: boolean;
      /** With an oci:// DIR: the directory inside the artifact and how to reach the registry. */
      readonly path?: string;
      readonly registry?: RegistryFlags;
      /** --release FILE: the Release whose spec.render, name and namespace the render takes. */
      readonly release?: string;
      readonly type?: 'Plain' | 'Kustomize' | 'Helm';
      /** Helm's .Capabilities offline: --kube-version, --api-versions (repeated). */
      readonly kubeVersion?: string;
      readonly apiVersions: readonly string[];
    }
  | {
      readonly kind: 'pushArtifact';
      readonly dir: string;
      readonly reference: string;
      readonly annotations: Readonly<Record<string, string>>;
      readonly registry: RegistryFlags;
    }
  | {
      readonly kind: 'import';
      readonly global: Global;
      readonly paths: readonly string[];
      readonly namespace?: string;
    }
  | (Named<'sync'> & {
      readonly force: boolean;
      readonly direct: boolean;
      readonly approve: boolean;
      readonly yes: boolean;
    })
  | (Named<'approve'> & { readonly yes: boolean; readonly direct: boolean })
  | (Named<'pin'> & { readonly renderRef: string })
  | Named<'unpin'>
  | Named<'rollback'>
  | Named<'suspend'>
  | Named<'resume'>
  | {
      readonly kind: 'rulesEval';
      readonly rules: readonly string[];
      readonly objects: readonly string[];
      /** A directory of labelled fixtures to score instead of judging OBJECT files. */
      readonly expect?: string;
      readonly output: 'table' | 'json';
    }
  | (Named<'watch'> & { readonly timeoutMs?: number; readonly renderRef?: string })
  | Named<'fleetStatus'>
  | (Named<'fleetWatch'> & { readonly timeoutMs?: number })
  | { readonly kind: 'ui'; readonly global: Global; readonly port: number }
  | { readonly kind: 'dev'; readonly args: readonly string[] };

/** --creds, --ca-file, --insecure of the commands that talk to a registry. */
export interface RegistryFlags {
  readonly creds?: string;
  readonly caFile?: string;
  readonly insecure: boolean;
}

export type DiffFrom =
  | { readonly kind: 'current' }
  | { readonly kind: 'render'; readonly renderRef: string }
  | { readonly kind: 'dir'; readonly dir: string };

export type Parsed =
  | { readonly ok: true; readonly command: Command }
  | { readonly ok: false; readonly message: string; readonly command?: string };

/** A render id as users type it: the full `sha256:<64 hex>`, or its first hex digits (at least 7). */
export const RENDER_ID = /^(sha256:)?[0-9a-f]{7,64}$/;

function fail(message: string, command?: string): Parsed {
  return command === undefined ? { ok: false, message } : { ok: false, message, command };
}

function options(flags: readonly FlagSpec[]): NonNullable<ParseArgsConfig['options']> {
  const o: NonNullable<ParseArgsConfig['options']> = {};
  for (const f of flags) {
    o[f.name] = {
      type: f.type,
      ...(f.short === undefined ? {} : { short: f.short }),
      ...(f.multiple === true ? { multiple: true } : {}),
    };
  }
  return o;
}

/** parseArgs' errors (which suggest `--` and quote Node's option syntax) as one line of ours. */
export function parseArgsMessage(err: unknown, flags: readonly FlagSpec[]): string {
  const e = err as { code?: string; message?: string };
  const msg = e.message ?? String(err);
  const opt = /'(-[^']*)'/.exec(msg)?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${opt ?? msg}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /--([a-z-]+)/.exec(msg)?.[1];
      const f = flags.find((x) => x.name === name);
      if (f?.type === 'boolean') return `--${name} takes no value`;
      return `--${name ?? '?'} needs a value${f?.value === undefined ? '' : ` (${f.value})`}`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(msg)?.[1] ?? ''}`.trimEnd();
    default:
      return msg.split('\n')[0] ?? msg;
  }
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export function parseCommand(argv: readonly string[]): Parsed {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h')
    return { ok: true, command: { kind: 'help' } };
  if (verb === 'help') {
    if (rest.includes('--help') || rest.includes('-h'))
      return { ok: true, command: { kind: 'help', topic: 'help' } };
    const topic = rest.join(' ');
    if (topic !== '' && findCommand(rest) === undefined) return fail(`help: unknown command "${topic}"`);
    return { ok: true, command: topic === '' ? { kind: 'help' } : { kind: 'help', topic } };
  }
  const spec = findCommand(argv);
  if (spec === undefined) {
    if (verb === 'rules') return fail(`rules: unknown subcommand "${rest[0] ?? ''}" (try: rules eval)`);
    if (verb === 'fleet')
      return fail(`fleet: unknown subcommand "${rest[0] ?? ''}" (try: fleet status, fleet watch)`);
    return fail(`unknown command "${verb}"`);
  }
  const args = spec.name.includes(' ') ? rest.slice(1) : rest;
  if (spec.name === 'dev') {
    if (args.includes('--help') || args.includes('-h'))
      return { ok: true, command: { kind: 'help', topic: 'dev' } };
    return { ok: true, command: { kind: 'dev', args } };
  }
  const flags = [...spec.flags, ...(spec.cluster ? CLUSTER_FLAGS : []), HELP_FLAG];
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      options: options(flags),
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] });
  } catch (err) {
    return fail(`${spec.name}: ${parseArgsMessage(err, flags)}`, spec.name);
  }
  if (values.help === true) return { ok: true, command: { kind: 'help', topic: spec.name } };
  const r = build(spec, values, positionals);
  return r.ok ? r : fail(r.message, spec.name);
}

function build(spec: CommandSpec, values: Values, positionals: readonly string[]): Parsed {
  const cmd = spec.name;
  const str = (k: string) => values[k] as string | undefined;
  const bool = (k: string) => values[k] === true;
  const output = str('output') ?? 'table';
  if (!(OUTPUTS as readonly string[]).includes(output)) {
    return fail(`${cmd}: --output must be one of ${OUTPUTS.join(', ')}, got "${output}"`);
  }
  const global: Global = {
    ...(str('kubeconfig') === undefined ? {} : { kubeconfig: str('kubeconfig') }),
    ...(str('context') === undefined ? {} : { context: str('context') }),
    ...(str('namespace') === undefined ? {} : { namespace: str('namespace') }),
    allNamespaces: bool('all-namespaces'),
    output: output as Output,
    ...(bool('show-secrets') ? { showSecrets: true as const } : {}),
  };
  const want = (n: number, what: string): string | undefined =>
    positionals.length === n
      ? undefined
      : positionals.length < n
        ? `${cmd}: expected ${what}`
        : `${cmd}: expected ${what}, got ${positionals.length} arguments (${positionals.join(' ')})`;
  const name = positionals[0] ?? '';
  const registryFlags = (): RegistryFlags => {
    const creds = str('creds');
    const caFile = str('ca-file');
    return {
      ...(creds === undefined ? {} : { creds }),
      ...(caFile === undefined ? {} : { caFile }),
      insecure: bool('insecure'),
    };
  };
  const registryFlagsGiven = () => ['creds', 'ca-file', 'insecure'].some((k) => values[k] !== undefined);
  const renderId = (flag: string, v: string | undefined): string | undefined =>
    v === undefined || RENDER_ID.test(v)
      ? undefined
      : `${cmd}: ${flag} must be a render id (sha256:… or its first 7+ hex digits), got "${v}"`;
  /** --timeout as the spread `{ timeoutMs }` (empty when not given), or the line saying it is no duration. */
  const timeoutFlag = (): { timeoutMs?: number } | string => {
    const t = str('timeout');
    if (t === undefined) return {};
    let d = Number.NaN;
    try {
      d = parseDuration(t);
    } catch {
      // not a duration: reported below
    }
    return d > 0 ? { timeoutMs: d } : `${cmd}: --timeout must be a duration like 10m, got "${t}"`;
  };
  switch (cmd) {
    case 'get': {
      const word = positionals[0] === undefined ? undefined : GET_RESOURCES[positionals[0]];
      const names = word === undefined ? positionals : positionals.slice(1);
      if (names.length > 1) return fail(`get: expected at most one NAME, got ${names.join(' ')}`);
      if (global.allNamespaces && names.length === 1) return fail('get: a NAME cannot be used with -A');
      const getName = names[0];
      const sel = str('status-selector');
      if (sel !== undefined && word !== undefined && word !== 'releases') {
        return fail(`get ${positionals[0]}: --status-selector applies to Releases only`);
      }
      let statusSelector: StatusSelector | undefined;
      if (sel !== undefined) {
        const s = parseStatusSelector(sel);
        if (!s.ok) return fail(`get: --status-selector: ${s.message}`);
        statusSelector = s.selector;
      }
      return {
        ok: true,
        command: {
          kind: 'get',
          global,
          ...(word === undefined || word === 'releases' ? {} : { resource: word }),
          ...(getName ? { name: getName } : {}),
          ...(str('selector') === undefined ? {} : { labelSelector: str('selector') }),
          ...(statusSelector === undefined ? {} : { statusSelector }),
        },
      };
    }
    case 'status':
    case 'health':
    case 'tree':
    case 'history':
    case 'events':
    case 'unpin':
    case 'rollback':
    case 'suspend':
    case 'resume': {
      const e = want(1, 'NAME');
      return e === undefined ? { ok: true, command: { kind: cmd, global, name } } : fail(e);
    }
    case 'logs': {
      const e = want(2, 'NAME and HOOK');
      if (e !== undefined) return fail(e);
      const t = str('tail');
      let tail: number | undefined;
      if (t !== undefined) {
        tail = Number(t);
        if (!Number.isInteger(tail) || tail < 0)
          return fail(`logs: --tail must be a number of lines, got "${t}"`);
      }
      return {
        ok: true,
        command: {
          kind: 'logs',
          global,
          name,
          hook: positionals[1] ?? '',
          ...(tail === undefined ? {} : { tail }),
        },
      };
    }
    case 'pin': {
      const e = want(2, 'NAME and REF');
      if (e !== undefined) return fail(e);
      const ref = positionals[1] ?? '';
      const bad = renderId('REF', ref);
      if (bad !== undefined) return fail(bad);
      return { ok: true, command: { kind: 'pin', global, name, renderRef: ref } };
    }
    case 'diff': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      const render = str('render');
      const dir = str('dir');
      if (render !== undefined && dir !== undefined)
        return fail('diff: --render and --dir exclude each other');
      const bad = renderId('--render', render);
      if (bad !== undefined) return fail(bad);
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
      const tn = str('target-namespace');
      const path = str('path');
      if (path !== undefined && !name.startsWith('oci://'))
        return fail('render: --path is for oci:// references');
      const type = str('type');
      if (type !== undefined && type !== 'Plain' && type !== 'Kustomize' && type !== 'Helm')
        return fail(`render: --type must be Plain, Kustomize or Helm, got "${type}"`);
      const release = str('release');
      const kubeVersion = str('kube-version');
      return {
        ok: true,
        command: {
          kind: 'render',
          global,
          dir: name,
          substitute,
          refOnly: bool('ref-only'),
          apiVersions: (values['api-versions'] as string[] | undefined) ?? [],
          ...(tn === undefined ? {} : { targetNamespace: tn }),
          ...(path === undefined ? {} : { path }),
          ...(registryFlagsGiven() ? { registry: registryFlags() } : {}),
          ...(type === undefined ? {} : { type }),
          ...(release === undefined ? {} : { release }),
          ...(kubeVersion === undefined ? {} : { kubeVersion }),
        },
      };
    }
    case 'push artifact': {
      const e = want(2, 'DIR and oci://HOST/REPO:TAG');
      if (e !== undefined) return fail(e);
      const reference = positionals[1] ?? '';
      if (!reference.startsWith('oci://'))
        return fail(`push artifact: expected oci://HOST/REPO:TAG, got "${reference}"`);
      // No tag would silently push :latest, which a Release pinned to a tag never reads.
      if (!reference.slice(reference.lastIndexOf('/') + 1).includes(':') && !reference.includes('@'))
        return fail(
          `push artifact: "${reference}" names no tag; usage: convoy push artifact DIR oci://HOST/REPO:TAG (e.g. ${reference}:1.0.0)`,
          'push artifact',
        );
      const annotations: Record<string, string> = {};
      for (const kv of (values.annotation as string[] | undefined) ?? []) {
        const eq = kv.indexOf('=');
        if (eq <= 0) return fail(`push artifact: --annotation takes KEY=VALUE, got "${kv}"`);
        annotations[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
      const source = str('source');
      const revision = str('revision');
      if (source !== undefined) annotations['org.opencontainers.image.source'] = source;
      if (revision !== undefined) annotations['org.opencontainers.image.revision'] = revision;
      return {
        ok: true,
        command: { kind: 'pushArtifact', dir: name, reference, annotations, registry: registryFlags() },
      };
    }
    case 'import': {
      if (positionals.length === 0) return fail('import: expected FILE or DIR (or - for stdin)');
      return {
        ok: true,
        command: {
          kind: 'import',
          global,
          paths: positionals,
          ...(global.namespace === undefined ? {} : { namespace: global.namespace }),
        },
      };
    }
    case 'sync': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      if (bool('yes') && !bool('approve')) return fail('sync: --yes only goes with --approve');
      return {
        ok: true,
        command: {
          kind: 'sync',
          global,
          name,
          force: bool('force'),
          direct: bool('direct'),
          approve: bool('approve'),
          yes: bool('yes'),
        },
      };
    }
    case 'approve': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      return {
        ok: true,
        command: { kind: 'approve', global, name, yes: bool('yes'), direct: bool('direct') },
      };
    }
    case 'watch': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      const timeout = timeoutFlag();
      if (typeof timeout === 'string') return fail(timeout);
      const r = str('render');
      const bad = renderId('--render', r);
      if (bad !== undefined) return fail(bad);
      return {
        ok: true,
        command: {
          kind: 'watch',
          global,
          name,
          ...timeout,
          ...(r === undefined ? {} : { renderRef: r }),
        },
      };
    }
    case 'fleet status': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      return { ok: true, command: { kind: 'fleetStatus', global, name } };
    }
    case 'fleet watch': {
      const e = want(1, 'NAME');
      if (e !== undefined) return fail(e);
      const timeout = timeoutFlag();
      if (typeof timeout === 'string') return fail(timeout);
      return {
        ok: true,
        command: { kind: 'fleetWatch', global, name, ...timeout },
      };
    }
    case 'ui': {
      const e = want(0, 'no arguments');
      if (e !== undefined) return fail(e);
      const p = str('port') ?? '0';
      if (!/^[0-9]{1,5}$/.test(p) || Number(p) > 65535) {
        return fail(`ui: --port must be a port number (0: any free port), got "${p}"`);
      }
      return { ok: true, command: { kind: 'ui', global, port: Number(p) } };
    }
    case 'rules eval': {
      const rules = (values.rules as string[] | undefined) ?? ['default', 'library'];
      if (output !== 'table' && output !== 'json') {
        return fail(`rules eval: --output must be table or json, got "${output}"`);
      }
      const expect = str('expect');
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
    default:
      return fail(`unknown command "${cmd}"`);
  }
}

const CONDITION_VALUES = ['True', 'False', 'Unknown'];

/** Pure: "ready=false,rollout=Failed" → a StatusSelector (condition values are case-insensitive). */
export function parseStatusSelector(
  text: string,
):
  | { readonly ok: true; readonly selector: StatusSelector }
  | { readonly ok: false; readonly message: string } {
  const out: { ready?: string; healthy?: string; rollout?: string; suspended?: boolean } = {};
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, message: `expected KEY=VALUE, got "${part}"` };
    const key = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    const cond = CONDITION_VALUES.find((v) => v.toLowerCase() === value.toLowerCase());
    switch (key) {
      case 'ready':
      case 'healthy':
        if (cond === undefined)
          return { ok: false, message: `${key} takes True, False or Unknown, got "${value}"` };
        out[key] = cond;
        break;
      case 'rollout':
        if (value === '') return { ok: false, message: 'rollout needs a state, e.g. rollout=Failed' };
        out.rollout = value;
        break;
      case 'suspended':
        if (!/^(true|false)$/i.test(value))
          return { ok: false, message: `suspended takes true or false, got "${value}"` };
        out.suspended = value.toLowerCase() === 'true';
        break;
      default:
        return { ok: false, message: `unknown key "${key}" (ready, healthy, rollout, suspended)` };
    }
  }
  return { ok: true, selector: out };
}
