// Which kubeconfig, context and namespace a command uses, resolved the way kubectl does:
// --kubeconfig, else $KUBECONFIG (a path list, merged), else ~/.kube/config; --context overrides the
// current context; the namespace is -n, else the context's, else "default".
//
// The files are read here, without @kubernetes/client-node: loading that library costs a second of
// CPU and ~90 MiB, ten times what `convoy get` may take. The credentials most kubeconfigs use (bearer
// token, token file, client certificate, basic auth, CA, insecure-skip-tls-verify, tls-server-name)
// are applied by LiteKubeConfig itself; anything else (exec plugins, auth-provider, impersonation, a
// proxy) is handed to client-node's KubeConfig, loaded only then (`needsClientNode`).
import { existsSync, readFileSync } from 'node:fs';
import type https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { KubeAuth } from '../kube/transport.ts';
import { errorMessage } from '../lib/errors.ts';
import { UserError } from './errors.ts';
import { parseSimpleYaml } from './kubeconfig-yaml.ts';

export type KubeconfigSource =
  | { readonly kind: 'files'; readonly paths: readonly string[]; readonly from: string }
  | { readonly kind: 'none'; readonly message: string };

/** Pure: the files to load, in merge order (the first file that sets a value wins, like kubectl). */
export function kubeconfigSource(
  flag: string | undefined,
  env: string | undefined,
  home: string,
  exists: (path: string) => boolean,
): KubeconfigSource {
  if (flag !== undefined && flag !== '') return { kind: 'files', paths: [flag], from: '--kubeconfig' };
  const listed = (env ?? '').split(delimiter).filter((p) => p !== '');
  if (listed.length > 0) {
    const present = listed.filter(exists);
    if (present.length === 0) {
      return { kind: 'none', message: `none of the files in $KUBECONFIG exist: ${listed.join(delimiter)}` };
    }
    return { kind: 'files', paths: present, from: '$KUBECONFIG' };
  }
  const dflt = join(home, '.kube', 'config');
  if (exists(dflt)) return { kind: 'files', paths: [dflt], from: dflt };
  return {
    kind: 'none',
    message: `no kubeconfig: pass --kubeconfig, set $KUBECONFIG, or create ${dflt}`,
  };
}

/** Pure: -n wins, then the context's namespace, then "default". */
export function resolveNamespace(flag: string | undefined, contextNamespace: string | undefined): string {
  if (flag !== undefined && flag !== '') return flag;
  if (contextNamespace !== undefined && contextNamespace !== '') return contextNamespace;
  return 'default';
}

type Fields = Readonly<Record<string, unknown>>;

interface Named {
  readonly name: string;
  /** The kubeconfig file's directory: relative paths in it are relative to the file (kubectl). */
  readonly dir: string;
  readonly fields: Fields;
}

/** The merged content of the kubeconfig files (first definition of a name wins). */
export interface KubeconfigDoc {
  readonly currentContext: string;
  readonly clusters: readonly Named[];
  readonly users: readonly Named[];
  readonly contexts: readonly Named[];
}

function namedList(doc: Fields, key: string, inner: string, dir: string, file: string): Named[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new UserError(`${file}: ${key} must be a list`);
  return list.map((item, i) => {
    const o = (item ?? {}) as Fields;
    if (typeof o.name !== 'string' || o.name === '')
      throw new UserError(`${file}: ${key}[${i}].name is missing`);
    const fields = o[inner];
    return {
      name: o.name,
      dir,
      fields: typeof fields === 'object' && fields !== null ? (fields as Fields) : {},
    };
  });
}

/** Pure: one file's text → its part of the document (`file` names it in errors). */
export function parseKubeconfigText(text: string, file: string): KubeconfigDoc {
  let doc: unknown;
  try {
    // the block YAML kubectl writes is read without the yaml library's slower first parse
    doc = parseSimpleYaml(text) ?? parse(text);
  } catch (err) {
    throw new UserError(`${file}: not valid YAML: ${errorMessage(err).split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new UserError(`${file}: not a kubeconfig (a YAML map)`);
  const d = doc as Fields;
  const dir = dirname(file);
  return {
    currentContext: typeof d['current-context'] === 'string' ? d['current-context'] : '',
    clusters: namedList(d, 'clusters', 'cluster', dir, file),
    users: namedList(d, 'users', 'user', dir, file),
    contexts: namedList(d, 'contexts', 'context', dir, file),
  };
}

/** Pure: kubectl's merge, the first file defining a name (or the current context) wins. */
export function mergeKubeconfigs(docs: readonly KubeconfigDoc[]): KubeconfigDoc {
  const firstWins = (lists: readonly (readonly Named[])[]) => {
    const seen = new Map<string, Named>();
    for (const l of lists) for (const n of l) if (!seen.has(n.name)) seen.set(n.name, n);
    return [...seen.values()];
  };
  return {
    currentContext: docs.find((d) => d.currentContext !== '')?.currentContext ?? '',
    clusters: firstWins(docs.map((d) => d.clusters)),
    users: firstWins(docs.map((d) => d.users)),
    contexts: firstWins(docs.map((d) => d.contexts)),
  };
}

/** User fields LiteKubeConfig applies itself; any other set field needs client-node. */
const LITE_USER_FIELDS = new Set([
  'token',
  'tokenFile',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'username',
  'password',
]);
const LITE_CLUSTER_FIELDS = new Set([
  'server',
  'certificate-authority',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'extensions',
]);

export interface Selected {
  readonly context: string;
  readonly contextNamespace?: string;
  readonly cluster: Named;
  readonly user?: Named;
}

/** Pure: the context to use and its cluster and user; a UserError naming what is missing. */
export function selectContext(doc: KubeconfigDoc, files: string, context: string | undefined): Selected {
  const name = context !== undefined && context !== '' ? context : doc.currentContext;
  if (name === '') throw new UserError(`${files}: no current context; pass --context`);
  const ctx = doc.contexts.find((c) => c.name === name);
  if (ctx === undefined) throw new UserError(`context "${name}" does not exist in ${files}`);
  const clusterName = ctx.fields.cluster;
  const cluster = doc.clusters.find((c) => c.name === clusterName);
  if (cluster === undefined) {
    throw new UserError(
      `context "${name}" names cluster "${String(clusterName ?? '')}", which is not in ${files}`,
    );
  }
  if (typeof cluster.fields.server !== 'string' || cluster.fields.server === '') {
    throw new UserError(`cluster "${cluster.name}" in ${files} has no server`);
  }
  const user = doc.users.find((u) => u.name === ctx.fields.user);
  const ns = ctx.fields.namespace;
  return {
    context: name,
    ...(typeof ns === 'string' && ns !== '' ? { contextNamespace: ns } : {}),
    cluster,
    ...(user === undefined ? {} : { user }),
  };
}

/** Pure: why client-node is needed for this context, or undefined when LiteKubeConfig suffices. */
export function needsClientNode(s: Selected): string | undefined {
  for (const k of Object.keys(s.user?.fields ?? {})) {
    if (!LITE_USER_FIELDS.has(k) && s.user?.fields[k] !== undefined && s.user.fields[k] !== null)
      return `user.${k}`;
  }
  for (const k of Object.keys(s.cluster.fields)) {
    if (!LITE_CLUSTER_FIELDS.has(k) && s.cluster.fields[k] !== undefined && s.cluster.fields[k] !== null) {
      return `cluster.${k}`;
    }
  }
  return undefined;
}

const abs = (n: Named, p: string) => (isAbsolute(p) ? p : join(n.dir, p));
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

function fileOrData(n: Named, fileKey: string, dataKey: string): Buffer | undefined {
  const file = str(n.fields[fileKey]);
  if (file !== undefined) {
    const path = abs(n, file);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new UserError(
        `${n.name}: cannot read ${fileKey} ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
    }
  }
  const data = str(n.fields[dataKey]);
  return data === undefined ? undefined : Buffer.from(data, 'base64');
}

/** A kubeconfig context with plain credentials, as the transport needs it (see KubeAuth). */
export class LiteKubeConfig implements KubeAuth {
  readonly selected: Selected;
  readonly #server: string;
  readonly #options: https.RequestOptions;
  readonly #tokenFile: string | undefined;

  constructor(s: Selected) {
    this.selected = s;
    this.#server = String(s.cluster.fields.server);
    const o: https.RequestOptions = {};
    const c = s.cluster;
    if (c.fields['insecure-skip-tls-verify'] === true) o.rejectUnauthorized = false;
    const sn = str(c.fields['tls-server-name']);
    if (sn !== undefined) o.servername = sn;
    const ca = fileOrData(c, 'certificate-authority', 'certificate-authority-data');
    if (ca !== undefined) o.ca = ca;
    const u = s.user;
    let tokenFile: string | undefined;
    if (u !== undefined) {
      const cert = fileOrData(u, 'client-certificate', 'client-certificate-data');
      if (cert !== undefined) o.cert = cert;
      const key = fileOrData(u, 'client-key', 'client-key-data');
      if (key !== undefined) o.key = key;
      const token = str(u.fields.token);
      const tf = str(u.fields.tokenFile);
      const headers: Record<string, string> = {};
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      else if (tf !== undefined) tokenFile = abs(u, tf);
      else if (str(u.fields.username) !== undefined) {
        const basic = `${String(u.fields.username)}:${String(u.fields.password ?? '')}`;
        headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
      }
      o.headers = headers;
    }
    this.#options = o;
    this.#tokenFile = tokenFile;
  }

  /** certificate-authority(-data) of the cluster, if the kubeconfig names one. */
  get ca(): Buffer | undefined {
    const ca = this.#options.ca;
    return Buffer.isBuffer(ca) ? ca : undefined;
  }

  getCurrentCluster(): ReturnType<KubeConfig['getCurrentCluster']> {
    return {
      name: this.selected.cluster.name,
      server: this.#server,
      skipTLSVerify: this.selected.cluster.fields['insecure-skip-tls-verify'] === true,
    };
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const { headers, ...tls } = this.#options;
    Object.assign(opts, tls);
    const merged = {
      ...(opts.headers as Record<string, string> | undefined),
      ...(headers as Record<string, string>),
    };
    if (this.#tokenFile !== undefined) {
      // Re-read per request, like client-node: projected tokens rotate.
      merged.authorization = `Bearer ${readFileSync(this.#tokenFile, 'utf8').trim()}`;
    }
    opts.headers = merged;
  }
}

export type LoadedAuth =
  | { readonly kind: 'lite'; readonly config: LiteKubeConfig }
  | { readonly kind: 'client-node'; readonly why: string; readonly paths: readonly string[] };

export interface ResolvedConfig {
  readonly auth: LoadedAuth;
  readonly namespace: string;
  readonly context: string;
  readonly server: string;
  /** The kubeconfig files, in merge order (client-node loads them when needed). */
  readonly paths: readonly string[];
}

function readKubeconfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : (code ?? String(err));
    throw new UserError(`kubeconfig ${path}: ${what}`);
  }
}

export function loadConfig(opts: {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly env?: NodeJS.ProcessEnv;
}): ResolvedConfig {
  const env = opts.env ?? process.env;
  const src = kubeconfigSource(opts.kubeconfig, env.KUBECONFIG, env.HOME || homedir(), existsSync);
  if (src.kind === 'none') throw new UserError(src.message);
  const files = src.paths.join(delimiter);
  const doc = mergeKubeconfigs(src.paths.map((p) => parseKubeconfigText(readKubeconfig(p), p)));
  const s = selectContext(doc, files, opts.context);
  const why = needsClientNode(s);
  return {
    auth:
      why === undefined
        ? { kind: 'lite', config: new LiteKubeConfig(s) }
        : { kind: 'client-node', why, paths: src.paths },
    namespace: resolveNamespace(opts.namespace, s.contextNamespace),
    context: s.context,
    server: String(s.cluster.fields.server),
    paths: src.paths,
  };
}

/** client-node's KubeConfig for the same files and context (loaded on demand: it is heavy). */
export async function clientNodeConfig(paths: readonly string[], context: string): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  const [first, ...rest] = paths;
  if (first === undefined) throw new UserError('no kubeconfig');
  kc.loadFromFile(first);
  for (const p of rest) {
    const more = new KubeConfig();
    more.loadFromFile(p);
    for (const c of more.clusters) if (kc.getCluster(c.name) === null) kc.addCluster(c);
    for (const u of more.users) if (kc.getUser(u.name) === null) kc.addUser(u);
    for (const c of more.contexts) if (kc.getContextObject(c.name) === null) kc.addContext(c);
  }
  kc.setCurrentContext(context);
  return kc;
}
