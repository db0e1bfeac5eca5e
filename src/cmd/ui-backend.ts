// The web UI behind the aggregated API (--api-ui; docs/ui.md#in-a-cluster): for each user the API
// server authenticated, the CLI's own reads and writes (src/cli/commands/ui.ts cliBackend) run in a
// context whose client impersonates that user — Impersonate-User, -Uid, -Group and -Extra-* on every
// request — so the UI sees and does what the user may with kubectl, and the API server's audit log
// names them. This process's credentials need `impersonate` for it (the RBAC docs/ui.md shows).
import { PassThrough } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import type { Global } from '../cli/args.ts';
import { cliBackend } from '../cli/commands/ui.ts';
import type { Ctx } from '../cli/context.ts';
import { KubeClient } from '../kube/client.ts';
import type { UiHandler, UserInfo } from '../server/index.ts';
import { SecretRenderStore } from '../store/secrets.ts';
import { uiMount } from '../ui/mount.ts';

type HttpsOptions = Parameters<KubeConfig['applyToHTTPSOptions']>[0];

/** The impersonation headers for `user` (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#user-impersonation). */
export function impersonationHeaders(user: UserInfo): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'Impersonate-User': user.username };
  if (user.uid !== undefined && user.uid !== '') h['Impersonate-Uid'] = user.uid;
  if (user.groups.length > 0) h['Impersonate-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra)) {
    if (values.length > 0) h[`Impersonate-Extra-${encodeURIComponent(key)}`] = [...values];
  }
  return h;
}

/** A copy of `base` that impersonates `user` on every request it authenticates. */
class ImpersonatingKubeConfig extends KubeConfig {
  readonly #headers: Record<string, string | string[]>;
  constructor(base: KubeConfig, user: UserInfo) {
    super();
    this.loadFromOptions({
      clusters: base.clusters,
      users: base.users,
      contexts: base.contexts,
      currentContext: base.currentContext,
    });
    this.#headers = impersonationHeaders(user);
  }
  override async applyToHTTPSOptions(opts: HttpsOptions): Promise<void> {
    await super.applyToHTTPSOptions(opts);
    opts.headers = { ...opts.headers, ...this.#headers };
  }
  // client-node's typed APIs authenticate here, where a header takes one value (no group list): they
  // would act with fewer groups or as this process. Nothing on the UI's paths uses them; fail closed.
  override async applySecurityAuthentication(): Promise<void> {
    throw new Error('the in-cluster web UI makes every request through KubeClient (impersonating its user)');
  }
}

/** A CLI context acting as `user` in `namespace`; nothing it prints leaves the process (cliBackend captures it). */
function userCtx(base: KubeConfig, user: UserInfo, namespace: string): Ctx {
  const kubeConfig = new ImpersonatingKubeConfig(base, user);
  const client = new KubeClient(kubeConfig);
  const sink = new PassThrough();
  sink.resume();
  const global: Global = { namespace, allNamespaces: false, output: 'table' };
  return {
    out: sink,
    err: sink,
    stdin: new PassThrough(),
    env: {},
    now: () => new Date(),
    fullKubeConfig: async () => kubeConfig,
    client,
    store: new SecretRenderStore(client),
    namespace,
    global,
    tty: false,
    colour: false,
    print: () => undefined,
    note: () => undefined,
  };
}

export function uiHandler(kubeConfig: KubeConfig): UiHandler {
  return uiMount({ backendFor: (user, namespace) => cliBackend(userCtx(kubeConfig, user, namespace)) });
}
