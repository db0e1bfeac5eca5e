// stageRender: resolve the target, then fetch the source and render it — or, with a pin, load the
// pinned render from the store without fetching anything, so a broken source cannot block a pin.
import { parseOptionalDuration } from '../../../api/duration.ts';
import type { Release } from '../../../api/types.ts';
import { clusterCapabilities } from '../../../kube/capabilities.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { discoverScope } from '../../../render/discover-scope.ts';
import { RenderError, SourceError } from '../../../render/errors.ts';
import { helmRenderInputs } from '../../../render/helm/inputs.ts';
import { valuesFromClient } from '../../../render/helm/values-from-client.ts';
import { assembleOutcomeYielding, renderManifests } from '../../../render/release.ts';
import { credentialsFromSecretData, fetchSource, sourceSecretNames } from '../../../render/source.ts';
import type { CredentialData, Render, RenderInputs } from '../../../render/types.ts';
import type { ReleaseDeps } from '../deps.ts';
import {
  ClusterUnavailableError,
  PinNotFoundError,
  ReleaseError,
  RenderFailedError,
  SourceFailedError,
} from '../errors.ts';
import type { Target } from './target.ts';

export interface Rendered {
  readonly renderRef: string;
  readonly revision: string;
  readonly render: Render;
  readonly target: Target;
  readonly pinned: boolean;
}

export async function stageRender(release: Release, deps: ReleaseDeps): Promise<Rendered> {
  const target = await deps.resolveTarget(release);
  const pin = release.spec.pin?.renderRef;
  if (pin !== undefined) return { ...(await loadPinned(release, pin, deps)), target, pinned: true };

  const ns = namespaceOf(release);
  const source = await fetch(release, deps, ns);
  // The tool (if any) runs once; its manifests are assembled twice, the second time knowing the scope
  // of the kinds the first found.
  const manifests = await renderManifests(release.spec, source, {
    ...(deps.renderers === undefined ? {} : { renderers: deps.renderers }),
    namespace: ns,
    name: nameOf(release),
    inputs: await renderInputs(release, deps, target),
  });
  const first = await assembleOutcomeYielding(release.spec, source.revision, manifests, {
    releaseNamespace: ns,
  });
  if (!first.ok) throw new RenderFailedError(first.error.message, { cause: first.error });
  // Discovery decides the scope of kinds the built-in list does not know (custom resources).
  const isNamespaced = await discoverScope(
    target.readClient,
    first.render.objects.map((o) => o.apiVersion),
  ).catch((err: unknown) => {
    throw new ClusterUnavailableError(
      'ClusterNotReady',
      `reading the target's API discovery failed: ${errorMessage(err)}; retrying`,
      { cause: err },
    );
  });
  const out = await assembleOutcomeYielding(release.spec, source.revision, manifests, {
    isNamespaced,
    releaseNamespace: ns,
  });
  if (!out.ok) throw new RenderFailedError(out.error.message, { cause: out.error });
  return { renderRef: out.renderRef, revision: out.revision, render: out.render, target, pinned: false };
}

async function fetch(release: Release, deps: ReleaseDeps, ns: string) {
  let credentials: CredentialData | undefined;
  for (const name of sourceSecretNames(release.spec.source)) {
    const secret = await deps.local
      .get<{ data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name })
      .catch((err: unknown) => {
        throw new SourceFailedError(`reading Secret ${ns}/${name}: ${errorMessage(err)}`);
      });
    if (secret === undefined) throw new SourceFailedError(`Secret ${ns}/${name} not found`);
    credentials = { ...credentials, ...credentialsFromSecretData(secret.data) };
  }
  try {
    const request = deps.syncRequest;
    const out = await fetchSource(
      release.spec.source,
      credentials,
      deps.sources,
      deps.signal,
      // A requested sync reads the server anew; an interval pass takes a read of the same repository
      // another Release made within its interval (docs/design.md#requested-syncs).
      request === undefined
        ? { pollWindowMs: parseOptionalDuration(release.spec.syncPolicy?.interval) ?? 0 }
        : { readAfter: request.readAfter },
    );
    request?.answered();
    return out;
  } catch (err) {
    if (err instanceof SourceError)
      throw new SourceFailedError(err.message, { cause: err, reason: err.reason });
    if (err instanceof RenderError) throw new RenderFailedError(err.message, { cause: err });
    if (err instanceof ReleaseError) throw err;
    throw new SourceFailedError(`fetching the source: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * What a Helm render depends on besides its files (helm/inputs.ts): valuesFrom read with the
 * controller's own rights in the Release's namespace, and the target's capabilities.
 */
async function renderInputs(release: Release, deps: ReleaseDeps, target: Target): Promise<RenderInputs> {
  const inputs = await helmRenderInputs(
    release.spec.render,
    namespaceOf(release),
    valuesFromClient(deps.local),
    () => clusterCapabilities(target.readClient),
  );
  if (!inputs.ok) {
    const error = new RenderError(inputs.problems);
    throw new RenderFailedError(error.message, { cause: error });
  }
  return inputs.value;
}

async function loadPinned(release: Release, renderRef: string, deps: ReleaseDeps) {
  const ns = namespaceOf(release);
  const name = nameOf(release);
  let render: Render | undefined;
  try {
    render = await deps.store.get(ns, name, renderRef);
  } catch (err) {
    throw new PinNotFoundError(`pinned render ${renderRef}: ${errorMessage(err)}`, { cause: err });
  }
  if (render === undefined)
    throw new PinNotFoundError(`pinned render ${renderRef} is not in the render store`);
  const status = release.status;
  const known = [
    ...(status?.history ?? []),
    status?.lastSuccessful,
    status?.lastAttempted,
    status?.lastHealthy,
  ].find((r) => r?.renderRef === renderRef);
  let revision = known?.revision;
  if (revision === undefined) {
    const meta = (await deps.store.list(ns, name)).find((m) => m.renderRef === renderRef);
    revision = meta?.revision ?? 'unknown';
  }
  return { renderRef, revision, render };
}
