// Turns the kubeconfig text a tenant put in a Secret into a KubeConfig convoy may use. The text is
// untrusted: anything that would make convoy read its own files (token-file, certificate paths — e.g.
// its own service account token) or run a program (exec, auth-provider) is refused, since either
// would hand the tenant convoy's identity. It is parsed once and client-node is given exactly the
// validated object, so two YAML parsers can never disagree about what was checked. Messages never
// quote the text: it holds credentials.
import { KubeConfig } from '@kubernetes/client-node';
import { parse, YAMLParseError } from 'yaml';

export type KubeconfigResult =
  | { readonly kind: 'ok'; readonly kubeConfig: KubeConfig }
  | { readonly kind: 'invalid'; readonly message: string };

/** Fields that name a local file or a program; `field` is how a kubeconfig spells it. */
const FORBIDDEN_USER_FIELDS = [
  { field: 'exec', what: 'runs a program' },
  { field: 'auth-provider', what: 'runs an auth provider' },
  { field: 'token-file', what: 'reads a local file' },
  { field: 'tokenFile', what: 'reads a local file' },
  { field: 'client-certificate', what: 'reads a local file' },
  { field: 'client-key', what: 'reads a local file' },
] as const;
const FORBIDDEN_CLUSTER_FIELDS = [{ field: 'certificate-authority', what: 'reads a local file' }] as const;

const ALLOWED = 'use token, client-certificate-data/client-key-data, certificate-authority-data';

type Named = { readonly name?: unknown; readonly [k: string]: unknown };

function entries(doc: Record<string, unknown>, list: string): readonly Named[] {
  const v = doc[list];
  return Array.isArray(v) ? (v as Named[]) : [];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first reason this parsed kubeconfig is refused, or undefined. Pure. */
export function refusal(doc: Record<string, unknown>): string | undefined {
  const check = (
    list: 'users' | 'clusters',
    inner: 'user' | 'cluster',
    forbidden: readonly { field: string; what: string }[],
  ): string | undefined => {
    for (const [i, e] of entries(doc, list).entries()) {
      const body = e[inner];
      if (!isRecord(body)) continue;
      for (const f of forbidden) {
        if (body[f.field] !== undefined && body[f.field] !== null && body[f.field] !== '') {
          const label = typeof e.name === 'string' ? ` "${e.name}"` : '';
          return `${list}[${i}]${label} sets ${f.field}, which ${f.what} inside convoy; ${ALLOWED}`;
        }
      }
    }
    return undefined;
  };
  return (
    check('users', 'user', FORBIDDEN_USER_FIELDS) ?? check('clusters', 'cluster', FORBIDDEN_CLUSTER_FIELDS)
  );
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}

/** Parses, validates and loads a kubeconfig; never throws and never echoes the text. */
export function loadKubeconfig(text: string): KubeconfigResult {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: false });
  } catch (err) {
    const where = err instanceof YAMLParseError ? ` at line ${lineOf(text, err.pos[0])}` : '';
    const code = err instanceof YAMLParseError ? ` (${err.code})` : '';
    return { kind: 'invalid', message: `not valid YAML${where}${code}` };
  }
  if (!isRecord(doc)) return { kind: 'invalid', message: 'not a kubeconfig: expected a YAML mapping' };
  const refused = refusal(doc);
  if (refused !== undefined) return { kind: 'invalid', message: refused };
  const kc = new KubeConfig();
  try {
    // JSON is YAML: client-node reads back exactly the object validated above.
    kc.loadFromString(JSON.stringify(doc));
  } catch (err) {
    // client-node's messages name entries and fields ("clusters[0].cluster.server is missing"), not values.
    return { kind: 'invalid', message: err instanceof Error ? err.message : 'cannot be loaded' };
  }
  if (kc.getCurrentCluster() === null) {
    return {
      kind: 'invalid',
      message:
        kc.currentContext === undefined || kc.currentContext === ''
          ? 'no current-context'
          : `current-context "${kc.currentContext}" names no context with a known cluster`,
    };
  }
  if (kc.getCurrentUser() === null) {
    return { kind: 'invalid', message: `current-context "${kc.currentContext}" names no known user` };
  }
  return { kind: 'ok', kubeConfig: kc };
}
