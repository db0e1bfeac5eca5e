// Which kubeconfig, context and namespace a command uses, resolved the way kubectl does:
// --kubeconfig, else $KUBECONFIG (a path list, merged), else ~/.kube/config; --context overrides the
// current context; the namespace is -n, else the context's, else "default".
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

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

export interface ResolvedConfig {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
}

export function loadConfig(opts: {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
  readonly env?: NodeJS.ProcessEnv;
}): ResolvedConfig {
  const env = opts.env ?? process.env;
  const src = kubeconfigSource(opts.kubeconfig, env.KUBECONFIG, homedir(), existsSync);
  if (src.kind === 'none') throw new Error(src.message);
  const kc = new KubeConfig();
  const [first, ...rest] = src.paths;
  if (first === undefined) throw new Error('no kubeconfig');
  kc.loadFromFile(first);
  for (const p of rest) {
    const more = new KubeConfig();
    more.loadFromFile(p);
    mergeFirstWins(kc, more);
  }
  if (opts.context !== undefined && opts.context !== '') {
    if (kc.getContextObject(opts.context) === null) {
      throw new Error(`context "${opts.context}" does not exist in ${src.paths.join(delimiter)}`);
    }
    kc.setCurrentContext(opts.context);
  }
  const current = kc.getCurrentContext();
  if (current === '' || kc.getContextObject(current) === null) {
    throw new Error(`${src.from}: no current context; pass --context`);
  }
  const ctx = kc.getContextObject(current);
  return { kubeConfig: kc, namespace: resolveNamespace(opts.namespace, ctx?.namespace) };
}

/** kubectl's merge: a name already defined by an earlier file keeps that definition. */
function mergeFirstWins(into: KubeConfig, more: KubeConfig): void {
  for (const c of more.clusters) if (into.getCluster(c.name) === null) into.addCluster(c);
  for (const u of more.users) if (into.getUser(u.name) === null) into.addUser(u);
  for (const c of more.contexts) if (into.getContextObject(c.name) === null) into.addContext(c);
  if (into.getCurrentContext() === '' && more.getCurrentContext() !== '') {
    into.setCurrentContext(more.getCurrentContext());
  }
}
