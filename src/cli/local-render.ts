// Rendering on the user's machine, with the controller's own code (renderRelease), so the renderRef
// printed here is the one the controller computes for the same files: a directory for `render` and
// `diff --dir`, and a Release's inline or git source when its current render is not stored yet (a
// render held by the Manual gate is only persisted once approved).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Release } from '../api/types.ts';
import { clusterCapabilities } from '../kube/capabilities.ts';
import type { KubeClient } from '../kube/client.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import { discoverScope } from '../render/discover-scope.ts';
import { RenderError } from '../render/errors.ts';
import { GitSource } from '../render/git/source.ts';
import { helmRenderInputs } from '../render/helm/inputs.ts';
import { ChartRepoSource } from '../render/helm/repo-source.ts';
import { valuesFromClient } from '../render/helm/values-from-client.ts';
import { InlineSource } from '../render/inline.ts';
import type { SourcePathRef } from '../render/kustomize/outside.ts';
import type { RegistryCredentials } from '../render/oci/auth.ts';
import { OciSource } from '../render/oci/source.ts';
import { assembleOutcome, renderManifests } from '../render/release.ts';
import { credentialsFromSecretData, fetchSource, sourceSecretNames } from '../render/source.ts';
import { toolRenderers } from '../render/tools/renderers.ts';
import type {
  Capabilities,
  CredentialData,
  OciSourceSpec,
  Render,
  RenderSpec,
  SourceOutput,
} from '../render/types.ts';
import { readDir } from './read-dir.ts';
import { localToolBinaries } from './tool-binaries.ts';

export { readDir } from './read-dir.ts';

export interface Rendered {
  readonly renderRef: string;
  readonly revision: string;
  readonly render: Render;
}

export type RenderFilesOptions = {
  /** The target: discovery decides the scope of kinds it knows, and gives Helm's .Capabilities. */
  readonly target?: KubeClient;
  /** Where valuesFrom ConfigMaps and Secrets are read (with the user's rights); offline: none. */
  readonly local?: KubeClient;
  /** The Release's namespace and name (Helm's namespace and release name when not set otherwise). */
  readonly namespace?: string;
  readonly name?: string;
  /** Helm's .Capabilities when there is no target (`--kube-version`, `--api-versions`). */
  readonly capabilities?: Capabilities;
  /** What chose the files when the spec has no source (`convoy render DIR`). */
  readonly sourcePath?: SourcePathRef;
};

/**
 * Renders fetched files as the controller would (the tool of a Kustomize or Helm render runs once);
 * with a target, discovery decides the scope of kinds it knows and Helm's capabilities, as in the
 * controller. Throws the RenderError naming every problem.
 */
export async function renderFiles(
  spec: { readonly render?: RenderSpec },
  source: SourceOutput,
  opts: RenderFilesOptions = {},
): Promise<Rendered> {
  const inputs = await helmRenderInputs(
    spec.render,
    opts.namespace ?? 'default',
    opts.local === undefined
      ? async () => {
          throw new Error('valuesFrom is read from the cluster; offline it is not available');
        }
      : valuesFromClient(opts.local),
    async () =>
      opts.capabilities ?? (opts.target === undefined ? undefined : clusterCapabilities(opts.target)),
  );
  if (!inputs.ok) throw new RenderError(inputs.problems);
  const manifests = await renderManifests(spec, source, {
    renderers: toolRenderers(localToolBinaries()),
    inputs: inputs.value,
    ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
    ...(opts.name === undefined ? {} : { name: opts.name }),
    ...(opts.sourcePath === undefined ? {} : { sourcePath: opts.sourcePath }),
  });
  const releaseNamespace = opts.namespace;
  const scoped = releaseNamespace === undefined ? {} : { releaseNamespace };
  let out = assembleOutcome(spec, source.revision, manifests, scoped);
  if (out.ok && opts.target !== undefined) {
    const isNamespaced = await discoverScope(
      opts.target,
      out.render.objects.map((o) => o.apiVersion),
    );
    out = assembleOutcome(spec, source.revision, manifests, { ...scoped, isNamespaced });
  }
  if (!out.ok) throw out.error;
  return { renderRef: out.renderRef, revision: out.revision, render: out.render };
}

export async function renderDir(
  dir: string,
  spec: { readonly render?: RenderSpec },
  opts: RenderFilesOptions = {},
) {
  return renderFiles(
    spec,
    { revision: `dir:${dir}`, files: await readDir(dir) },
    { sourcePath: { field: 'DIR', path: dir }, ...opts },
  );
}

/**
 * Pulls an artifact as the controller pulls spec.source.oci (the same OciSource, limits and checks)
 * and renders it: the renderRef is the controller's for that digest and render options.
 */
export async function renderOci(
  spec: { readonly render?: RenderSpec; readonly source: { readonly oci: OciSourceSpec } },
  access: {
    readonly credentials: RegistryCredentials;
    readonly caPem?: string;
    readonly noCredentialsHint?: string;
  },
  opts: { readonly target?: KubeClient; readonly namespace?: string } = {},
): Promise<Rendered> {
  const hint = 'give --creds USER:PASSWORD, set $CONVOY_REGISTRY_CREDS, or log in with docker login';
  const source = await new OciSource().fetchWith(
    spec.source.oci,
    access.credentials,
    access.caPem,
    undefined,
    hint,
  );
  return renderFiles(spec, source, opts);
}

/**
 * Fetches and renders the Release's source here (inline, or git through a throwaway clone with the
 * credentials of its secretRef, read with the user's own rights).
 */
export async function renderReleaseSource(
  release: Release,
  local: KubeClient,
  target: KubeClient,
): Promise<Rendered> {
  const ns = namespaceOf(release);
  let credentials: CredentialData | undefined;
  for (const name of sourceSecretNames(release.spec.source)) {
    const secret = await local.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: ns,
      name,
    });
    if (secret === undefined) throw new Error(`Secret ${ns}/${name} of the source not found`);
    credentials = { ...credentials, ...credentialsFromSecretData(secret.data) };
  }
  const cacheDir = await mkdtemp(join(tmpdir(), 'convoy-cli-git-'));
  try {
    const source = await fetchSource(release.spec.source, credentials, {
      inline: InlineSource,
      git: new GitSource({ cacheDir, allowFileUrls: true }),
      oci: new OciSource(),
      chart: new ChartRepoSource(),
    });
    return await renderFiles(release.spec, source, {
      target,
      local,
      namespace: ns,
      name: nameOf(release),
    });
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}
