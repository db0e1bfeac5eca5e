// Every `convoy` command as data: its arguments, flags, a summary and examples. `convoy help`, `convoy
// CMD --help` and the flag parser (args.ts) all read this table, so help cannot drift from what is
// parsed. A command's code is not here: main.ts or run.ts loads it only when that command runs
// (start-up cost).
// Pure data and text; no imports beyond types, so `convoy help` loads nothing else.

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** Placeholder of the value in help, e.g. DURATION. */
  readonly value?: string;
  readonly help: string;
}

export interface Example {
  readonly command: string;
  readonly comment: string;
}

export interface CommandSpec {
  /** "get", or "rules eval" for a subcommand. */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The arguments as shown in help, e.g. "NAME [REF]". */
  readonly args: string;
  readonly summary: string;
  /** A few more sentences for `convoy CMD --help`. */
  readonly description?: string;
  readonly flags: readonly FlagSpec[];
  /** Talks to a cluster: takes --kubeconfig, --context, -n (and -o). */
  readonly cluster: boolean;
  readonly examples: readonly Example[];
}

export const OUTPUT_FLAG: FlagSpec = {
  name: 'output',
  short: 'o',
  type: 'string',
  value: 'table|yaml|json',
  help: 'table is for people; yaml/json print the data',
};

export const CLUSTER_FLAGS: readonly FlagSpec[] = [
  {
    name: 'kubeconfig',
    type: 'string',
    value: 'PATH',
    help: 'kubeconfig file (else $KUBECONFIG, else ~/.kube/config)',
  },
  {
    name: 'context',
    type: 'string',
    value: 'NAME',
    help: 'kubeconfig context to use instead of the current one',
  },
  {
    name: 'namespace',
    short: 'n',
    type: 'string',
    value: 'NS',
    help: "namespace (else the context's, else default)",
  },
  OUTPUT_FLAG,
];

/** How `push artifact` and `render oci://…` reach a registry. */
const REGISTRY_FLAGS: readonly FlagSpec[] = [
  {
    name: 'creds',
    type: 'string',
    value: 'USER:PASSWORD',
    help: 'registry credentials (else $CONVOY_REGISTRY_CREDS, else ~/.docker/config.json)',
  },
  {
    name: 'ca-file',
    type: 'string',
    value: 'PATH',
    help: "PEM bundle the registry's certificate is checked against",
  },
  { name: 'insecure', type: 'boolean', help: 'plain HTTP to the registry (no TLS)' },
];

const SHOW_SECRETS: FlagSpec = {
  name: 'show-secrets',
  type: 'boolean',
  help: 'print Secret values (they are shown as *** otherwise)',
};

export const HELP_FLAG: FlagSpec = { name: 'help', short: 'h', type: 'boolean', help: 'show this help' };

const approveFlags: readonly FlagSpec[] = [
  { name: 'yes', short: 'y', type: 'boolean', help: 'approve without asking' },
  SHOW_SECRETS,
  {
    name: 'direct',
    type: 'boolean',
    help: 'write the annotations directly instead of through the convoy API',
  },
];

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'get',
    aliases: ['list'],
    args: '[alerts|providers|receivers] [NAME]',
    summary: 'list Releases (or Alerts, Providers, Receivers): ready, healthy, rollout, revision and message',
    description:
      'One row per Release. READY and HEALTHY are the status of those conditions; ROLLOUT is the state of the rollout (Suspended while suspended, (pinned) under a pin); MESSAGE says what is wrong or what it waits for. With alerts, providers or receivers first: those objects (docs/notifications.md), READY and MESSAGE from their Ready condition; `get release NAME` reads a Release whose name is one of those words.',
    cluster: true,
    flags: [
      {
        name: 'all-namespaces',
        short: 'A',
        type: 'boolean',
        help: 'every namespace (adds a NAMESPACE column)',
      },
      {
        name: 'selector',
        short: 'l',
        type: 'string',
        value: 'SELECTOR',
        help: 'label selector, e.g. team=shop',
      },
      {
        name: 'status-selector',
        type: 'string',
        value: 'KEY=VALUE,...',
        help: 'only Releases whose status matches: ready=, healthy= (True|False|Unknown), rollout= (a state), suspended= (true|false)',
      },
    ],
    examples: [
      { command: 'convoy get -A', comment: 'every Release of the cluster' },
      { command: 'convoy get -A --status-selector ready=false', comment: 'what needs attention' },
      { command: 'convoy get web -n shop -o yaml', comment: 'the Release object' },
      { command: 'convoy get providers -n shop', comment: 'where notifications go, and whether they arrive' },
    ],
  },
  {
    name: 'status',
    args: 'NAME',
    summary: 'rollout, waves, hooks and conditions of a Release',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy status web -n shop', comment: 'where the rollout of web stands' }],
  },
  {
    name: 'health',
    args: 'NAME',
    summary: 'health of every object of a Release, with the rule that decided',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy health web -n shop', comment: 'which object is not Healthy, and why' }],
  },
  {
    name: 'tree',
    args: 'NAME',
    summary: 'the objects of a Release by wave, with health and the deciding rule',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy tree web -n shop', comment: 'waves, hooks and objects of web' }],
  },
  {
    name: 'history',
    args: 'NAME',
    summary: 'renders applied, failed and rolled back, and what the render store keeps',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy history web -n shop', comment: 'the renders you can pin or roll back to' }],
  },
  {
    name: 'events',
    args: 'NAME',
    summary: 'Kubernetes Events of a Release and of its objects and hooks, oldest first',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy events web -n shop', comment: 'what happened to web and its objects' }],
  },
  {
    name: 'logs',
    args: 'NAME HOOK',
    summary: "logs of a hook's workload (the pods of its Job, or its Pod)",
    cluster: true,
    flags: [
      { name: 'tail', type: 'string', value: 'LINES', help: 'only the last LINES lines of each container' },
    ],
    examples: [
      { command: 'convoy logs web db-migrate -n shop', comment: 'what the PreSync migration printed' },
    ],
  },
  {
    name: 'diff',
    args: 'NAME',
    summary: 'what applying a render would change in the live objects',
    description:
      'Exit 0 when nothing would change, 1 when something would, 2 when an object fails the dry run.',
    cluster: true,
    flags: [
      {
        name: 'render',
        type: 'string',
        value: 'REF',
        help: 'a stored render (full or short ref) instead of the current one',
      },
      {
        name: 'dir',
        type: 'string',
        value: 'DIR',
        help: 'render a local directory with the Release’s render options',
      },
      SHOW_SECRETS,
    ],
    examples: [
      { command: 'convoy diff web -n shop', comment: 'the current render against the live objects' },
      {
        command: 'convoy diff web -n shop --dir ./deploy/web',
        comment: 'your local change before you push it',
      },
    ],
  },
  {
    name: 'render',
    args: 'DIR | oci://HOST/REPO[:TAG|@DIGEST]',
    summary: 'render a directory or an OCI artifact offline; prints the YAML and its renderRef',
    description:
      'An oci:// reference is pulled as the controller pulls spec.source.oci (same limits, same checks), so the renderRef is the one the controller computes for that artifact.',
    cluster: false,
    flags: [
      { name: 'path', type: 'string', value: 'DIR', help: 'with oci://: the directory inside the artifact' },
      ...REGISTRY_FLAGS,
      { name: 'target-namespace', type: 'string', value: 'NS', help: 'namespace for objects without one' },
      {
        name: 'substitute',
        type: 'string',
        multiple: true,
        value: 'NAME=VALUE',
        help: 'replace $NAME placeholders in the manifests',
      },
      { name: 'ref-only', type: 'boolean', help: 'print only the renderRef' },
      {
        name: 'release',
        type: 'string',
        value: 'FILE',
        help: 'take spec.render, the name and the namespace of this Release manifest',
      },
      { name: 'type', type: 'string', value: 'TYPE', help: 'Plain (default), Kustomize or Helm' },
      { name: 'kube-version', type: 'string', value: 'V', help: "Helm's .Capabilities.KubeVersion" },
      {
        name: 'api-versions',
        type: 'string',
        multiple: true,
        value: 'GROUP/VERSION',
        help: "Helm's .Capabilities.APIVersions",
      },
      SHOW_SECRETS,
      OUTPUT_FLAG,
    ],
    examples: [
      {
        command: 'convoy render ./deploy/web --target-namespace shop',
        comment: 'the objects convoy would apply',
      },
      {
        command: 'convoy render ./charts/web --release release.yaml --kube-version v1.36.0',
        comment: 'a chart, as the Release in release.yaml renders it',
      },
      { command: 'convoy render ./deploy/web --ref-only', comment: 'the renderRef, e.g. for watch --render' },
      {
        command: 'convoy render oci://ghcr.io/acme/web-manifests:1.4.0 --ref-only',
        comment: 'the renderRef of a pushed artifact',
      },
    ],
  },
  {
    name: 'push artifact',
    args: 'DIR oci://HOST/REPO:TAG',
    summary: 'pack a directory as an OCI artifact (Flux format) and push it; prints its digest',
    description: [
      "Packs the files under DIR (dot-directories such as .git left out) into a tar+gzip layer with Flux's media types, so a Release with spec.source.oci, or a Flux OCIRepository, reads it. Prints the manifest digest: the revision convoy shows for it.",
      'The same files and annotations always give the same digest (no timestamps), so pushing an unchanged directory again changes nothing.',
    ].join('\n\n'),
    cluster: false,
    flags: [
      {
        name: 'source',
        type: 'string',
        value: 'URL',
        help: 'org.opencontainers.image.source annotation, e.g. the git URL',
      },
      {
        name: 'revision',
        type: 'string',
        value: 'REV',
        help: 'org.opencontainers.image.revision annotation, e.g. main@sha1:…',
      },
      {
        name: 'annotation',
        type: 'string',
        multiple: true,
        value: 'KEY=VALUE',
        help: 'another manifest annotation',
      },
      ...REGISTRY_FLAGS,
    ],
    examples: [
      {
        command:
          'convoy push artifact ./deploy oci://ghcr.io/acme/web-manifests:1.4.0 --source "$(git config --get remote.origin.url)" --revision "1.4.0@sha1:$(git rev-parse HEAD)"',
        comment: 'CI: publish the manifests of a release',
      },
    ],
  },
  {
    name: 'import',
    args: 'FILE|DIR...',
    summary: 'turn Argo CD Applications and Flux Kustomizations/HelmReleases into Releases',
    description:
      'Reads YAML files (a directory: every *.yaml/*.yml in it) and prints a Release for each Argo CD Application, Flux Kustomization and Flux HelmRelease; Flux sources (GitRepository, OCIRepository, HelmRepository) are read from the same files. Every field that could not be carried over is listed on stderr. Exit 0 when at least one Release was written, 1 when none could be.',
    cluster: false,
    flags: [
      {
        name: 'namespace',
        short: 'n',
        type: 'string',
        value: 'NS',
        help: "namespace of every Release (default: an Application's destination namespace, a Flux object's own)",
      },
      OUTPUT_FLAG,
    ],
    examples: [
      {
        command: 'convoy import argocd-apps/ > releases.yaml',
        comment: 'every Application in a directory',
      },
      {
        command: 'kubectl get kustomizations,helmreleases,gitrepositories -A -o yaml | convoy import -',
        comment: 'what a Flux cluster runs now (- reads stdin)',
      },
    ],
  },
  {
    name: 'sync',
    args: 'NAME',
    summary: 'ask the controller to reconcile now (and approve, in Manual mode)',
    description:
      '--force re-applies, re-runs hooks and retries a Failed or RolledBack render once. --approve shows the diff of the current render and approves it, like `convoy approve`.',
    cluster: true,
    flags: [
      { name: 'force', type: 'boolean', help: 'open the manual gate once, re-apply and re-arm hooks' },
      {
        name: 'approve',
        type: 'boolean',
        help: 'Manual mode: approve the current render (asks unless --yes)',
      },
      ...approveFlags,
    ],
    examples: [
      { command: 'convoy sync web -n shop', comment: 'reconcile now instead of at the next interval' },
      {
        command: 'convoy sync web -n shop --approve --yes',
        comment: 'approve the current render of a Manual Release',
      },
    ],
  },
  {
    name: 'approve',
    args: 'NAME',
    summary: 'Manual mode: show the diff of the current render, then approve it',
    cluster: true,
    flags: approveFlags,
    examples: [{ command: 'convoy approve web -n shop', comment: 'review and approve' }],
  },
  {
    name: 'pin',
    args: 'NAME REF',
    summary: 'apply a stored render instead of following the source',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy pin web 4f1c9a0be27d -n shop', comment: 'pin by a short render id' }],
  },
  {
    name: 'unpin',
    args: 'NAME',
    summary: 'follow the source again',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy unpin web -n shop', comment: 'back to the source' }],
  },
  {
    name: 'rollback',
    args: 'NAME',
    summary: 'pin the last healthy render',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy rollback web -n shop', comment: 'undo a bad change now' }],
  },
  {
    name: 'suspend',
    args: 'NAME',
    summary: 'stop syncing and rolling back a Release (spec.suspend: true)',
    description: 'A suspended Release is neither synced nor rolled back; its Ready condition says Suspended.',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy suspend web -n shop', comment: 'hands off while you debug' }],
  },
  {
    name: 'resume',
    args: 'NAME',
    summary: 'sync a suspended Release again',
    cluster: true,
    flags: [],
    examples: [{ command: 'convoy resume web -n shop', comment: 'convoy takes over again' }],
  },
  {
    name: 'watch',
    args: 'NAME',
    summary:
      'follow a rollout until it ends: exit 0 Succeeded, 1 failed or needs a person, 2 error or timeout',
    description:
      'Ends with exit 1 and a line saying why when the rollout fails or the Release needs a person (a Ready=False that is not progress). Without --timeout it gives up after the rollout deadline plus 2 minutes (15 minutes without a failurePolicy).',
    cluster: true,
    flags: [
      {
        name: 'timeout',
        type: 'string',
        value: 'DURATION',
        help: 'give up (exit 2) after this long, e.g. 10m',
      },
      { name: 'render', type: 'string', value: 'REF', help: 'wait for this render (full or short ref)' },
    ],
    examples: [
      { command: 'convoy watch web -n shop', comment: 'follow the current rollout' },
      {
        command: 'convoy watch web -n shop --render "$(convoy render ./deploy/web --ref-only)"',
        comment: 'CI: wait for the render you pushed',
      },
    ],
  },
  {
    name: 'fleet status',
    args: 'NAME',
    summary: "a ReleaseSet's train and its per-cluster table (revision, state, health)",
    cluster: true,
    flags: [OUTPUT_FLAG],
    examples: [{ command: 'convoy fleet status web -n shop', comment: 'where the revision is in the fleet' }],
  },
  {
    name: 'fleet watch',
    args: 'NAME',
    summary:
      "follow a ReleaseSet's train: exit 0 when the revision reached every cluster, 1 on a stopped train or a fleet rollback, 2 error or timeout",
    cluster: true,
    flags: [
      {
        name: 'timeout',
        type: 'string',
        value: 'DURATION',
        help: 'give up (exit 2) after this long (default 30m)',
      },
    ],
    examples: [
      { command: 'convoy fleet watch web -n shop --timeout 20m', comment: 'CI: wait for the fleet' },
    ],
  },
  {
    name: 'ui',
    args: '',
    summary: 'a web UI on 127.0.0.1 that acts with your kubeconfig: Releases, rollouts, diffs, actions',
    description:
      "Serves the convoy web UI on 127.0.0.1 and prints its address (with a session token; open it in a browser on this machine). It watches Releases with your credentials — every namespace when you may list them, else the context namespace — and its actions (sync, approve, pin, rollback, unpin, suspend, resume) are the CLI's, so it can do exactly what you may. Ctrl-C stops it.",
    cluster: true,
    flags: [
      { name: 'port', type: 'string', value: 'PORT', help: 'port on 127.0.0.1 (default: any free one)' },
    ],
    examples: [{ command: 'convoy ui --context prod', comment: 'look at the rollouts of prod in a browser' }],
  },
  {
    name: 'rules eval',
    args: 'OBJECT.yaml... | --expect DIR',
    summary: 'judge objects with health rules offline, or score labelled fixtures',
    description: [
      'Judges Kubernetes objects with health rules, offline, exactly as the observer does. OBJECT files may hold several YAML documents or a List; - reads stdin. A file that does not parse is reported with its line and column and the other files are still judged.',
      "Without --rules: default and library. --expect DIR scores a directory of labelled fixtures instead: DIR/cases.json (entries with file and expected), or each file labelled by its name's first word (healthy, progressing, degraded, suspended, missing, unknown; e.g. degraded-no-secret.yaml). Healthy must pass, Progressing and Degraded fail; Suspended is shown apart, Missing and Unknown are left out.",
      'Exit 0 every object passes (with --expect: every scored fixture agrees); 1 some object fails or errors (with --expect: a disagreement or an evaluation error); 2 a rule does not compile, an input is not valid, or a usage error.',
    ].join('\n\n'),
    cluster: false,
    flags: [
      {
        name: 'rules',
        type: 'string',
        multiple: true,
        value: 'FILE|default|library',
        help: "a file of HealthRuleSet / GlobalHealthRuleSet manifests, convoy's default rules, or the rule library (one rule set per API group)",
      },
      {
        name: 'expect',
        type: 'string',
        value: 'DIR',
        help: 'score the labelled fixtures of DIR instead of OBJECT files',
      },
      { name: 'output', short: 'o', type: 'string', value: 'table|json', help: 'table (default) or json' },
    ],
    examples: [
      { command: 'kubectl get deploy web -o yaml | convoy rules eval -', comment: 'judge a live object' },
      {
        command: 'convoy rules eval --rules my-rules.yaml --expect ./fixtures',
        comment: 'check your rules against labelled cases',
      },
    ],
  },
  {
    name: 'dev',
    args: '',
    summary: 'local control plane + convoy + an example rollout (Ctrl-C stops it)',
    cluster: false,
    flags: [
      { name: 'nodes', type: 'string', value: 'N', help: 'simulated nodes' },
      { name: 'no-example', type: 'boolean', help: 'do not create the example Release' },
    ],
    examples: [{ command: 'convoy dev', comment: 'try convoy on this machine' }],
  },
  {
    name: 'help',
    args: '[COMMAND]',
    summary: 'this list, or the help of one command',
    cluster: false,
    flags: [],
    examples: [{ command: 'convoy help watch', comment: 'the flags and exit codes of watch' }],
  },
];

/** The spec of `convoy WORDS…` (a subcommand takes two words), or undefined. */
export function findCommand(words: readonly string[]): CommandSpec | undefined {
  const [a, b] = words;
  if (a === undefined) return undefined;
  return (
    (b === undefined ? undefined : COMMANDS.find((c) => c.name === `${a} ${b}`)) ??
    COMMANDS.find((c) => c.name === a || c.aliases?.includes(a) === true)
  );
}

export const EXIT_CODES =
  'exit codes: 0 success; 1 a negative answer (diff found changes, watch saw a failure, rules eval or render found a problem, approval declined); 2 usage and other errors';

function flagLine(f: FlagSpec): [string, string] {
  const left = `${f.short === undefined ? '    ' : `-${f.short}, `}--${f.name}${f.value === undefined ? '' : ` ${f.value}`}`;
  return [left, f.help + (f.multiple === true ? ' (repeatable)' : '')];
}

function columns(rows: readonly [string, string][], indent = '  '): string[] {
  const w = Math.max(0, ...rows.map((r) => r[0].length));
  return rows.map(([l, r]) => `${indent}${l.padEnd(w)}   ${r}`.trimEnd());
}

/** `convoy help`: every command with its summary. */
export function usageText(): string {
  return [
    'usage: convoy <command> [flags]          (also: kubectl convoy <command>)',
    '',
    'commands:',
    ...columns(
      COMMANDS.map((c) => [
        `${[c.name, ...(c.aliases ?? [])].join(' | ')}${c.args ? ` ${c.args}` : ''}`,
        c.summary,
      ]),
    ),
    '',
    'flags of the commands that talk to a cluster:',
    ...columns(CLUSTER_FLAGS.map(flagLine)),
    '',
    'convoy <command> --help shows its flags and examples.',
    EXIT_CODES,
    '',
  ].join('\n');
}

/** `convoy CMD --help`. */
export function commandHelp(c: CommandSpec): string {
  const out = [`usage: convoy ${c.name}${c.args ? ` ${c.args}` : ''} [flags]`, '', c.summary];
  if (c.description !== undefined) out.push('', c.description);
  if (c.flags.length > 0) out.push('', 'flags:', ...columns(c.flags.map(flagLine)));
  if (c.cluster) out.push('', 'cluster flags:', ...columns(CLUSTER_FLAGS.map(flagLine)));
  if (c.examples.length > 0) {
    out.push('', 'examples:');
    for (const e of c.examples) out.push(`  # ${e.comment}`, `  ${e.command}`);
  }
  out.push('', EXIT_CODES, '');
  return out.join('\n');
}
