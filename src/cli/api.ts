// The convoy HTTP API as the CLI reaches it: through the kube-apiserver's aggregation layer
// (/apis/api.convoy.kumodo.io/v1alpha1/...), so the user's kubeconfig is all it needs. When the group
// is not registered (404 from the kube-apiserver), reads are built from the cluster directly with the
// same pure views the server uses, and /sync is replaced by the same annotation write it would make.
import { API_VERSION, FIELD_MANAGERS } from '../api/constants.ts';
import type { Release } from '../api/types.ts';
import { applyObject } from '../kube/apply.ts';
import type { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { assertNever } from '../lib/assert-never.ts';
import { nameOf } from '../lib/names.ts';
import type { SyncRequest } from '../server/body.ts';
import { GROUP_VERSION } from '../server/routes.ts';
import { planSync, type SyncSet } from '../server/sync.ts';
import { type HealthResult, type HistoryResult, healthResult, historyResult } from '../server/views.ts';
import type { Render } from '../store/types.ts';
import { type Ctx, getInventory, mustGetRelease, UserError } from './context.ts';

const BASE = `/apis/${GROUP_VERSION}`;

export type ApiAvailability =
  | { readonly kind: 'served' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unavailable'; readonly message: string };

/** Whether the kube-apiserver serves the convoy API group (an APIService registered and reachable). */
export async function apiAvailability(client: KubeClient): Promise<ApiAvailability> {
  try {
    await client.request({ method: 'GET', path: BASE });
    return { kind: 'served' };
  } catch (err) {
    if (isKubeError(err) && err.code === 404) return { kind: 'absent' };
    return { kind: 'unavailable', message: err instanceof Error ? err.message : String(err) };
  }
}

const releasePath = (ns: string, name: string, sub: string) =>
  `${BASE}/namespaces/${encodeURIComponent(ns)}/releases/${encodeURIComponent(name)}/${sub}`;

export type SyncVia = 'api' | 'direct';

export interface SyncResult {
  readonly via: SyncVia;
  readonly set: SyncSet;
}

/**
 * POST …/sync, or with `direct` (or when the API group is absent) the same annotations written here
 * with Server-Side Apply as convoy-api, guarded by the Release's uid and resourceVersion.
 * `expectApproved` makes an approval fail if the current render moved since the user saw its diff.
 */
export async function requestSync(
  ctx: Ctx,
  name: string,
  req: SyncRequest,
  opts: { readonly direct: boolean; readonly expectApproved?: string },
): Promise<SyncResult> {
  let direct = opts.direct;
  if (!direct) {
    const a = await apiAvailability(ctx.client);
    switch (a.kind) {
      case 'served':
        break;
      case 'absent':
        ctx.note(
          `note: the convoy API (${GROUP_VERSION}) is not registered in this cluster; writing the sync annotations directly as ${FIELD_MANAGERS.api}`,
        );
        direct = true;
        break;
      case 'unavailable':
        throw new UserError(
          `the convoy API (${GROUP_VERSION}) is registered but not reachable: ${a.message}\n` +
            'is the controller-manager running? --direct writes the annotations without it',
        );
      default:
        return assertNever(a);
    }
  }
  if (!direct) {
    if (opts.expectApproved !== undefined) {
      const r = await mustGetRelease(ctx, name);
      checkApprovable(r, opts.expectApproved);
    }
    // The response body carries what was set at its top level (kind ReleaseSync).
    const res = await ctx.client.request<SyncSet>({
      method: 'POST',
      path: releasePath(ctx.namespace, name, 'sync'),
      body: req,
    });
    const set: SyncSet = {
      syncRequestedAt: res.syncRequestedAt,
      ...(res.approvedRender === undefined ? {} : { approvedRender: res.approvedRender }),
      ...(res.forceSyncAt === undefined ? {} : { forceSyncAt: res.forceSyncAt }),
    };
    return { via: 'api', set };
  }
  for (let attempt = 1; ; attempt++) {
    const release = await mustGetRelease(ctx, name);
    if (opts.expectApproved !== undefined) checkApprovable(release, opts.expectApproved);
    const decision = planSync(release, req, ctx.now());
    if (!decision.ok) throw new UserError(decision.error.message);
    try {
      await applyObject(
        ctx.client,
        {
          apiVersion: API_VERSION,
          kind: 'Release',
          metadata: { namespace: ctx.namespace, name, annotations: { ...decision.plan.annotations } },
        },
        {
          fieldManager: FIELD_MANAGERS.api,
          force: true,
          uidPrecondition: release.metadata.uid,
          resourceVersionPrecondition: release.metadata.resourceVersion,
        },
      );
      return { via: 'direct', set: decision.plan.set };
    } catch (err) {
      if (isKubeError(err) && err.code === 409 && attempt < 5) continue;
      throw err;
    }
  }
}

function checkApprovable(r: Release, shown: string): void {
  const current = r.status?.currentRender?.renderRef;
  if (current !== shown) {
    throw new UserError(
      `the current render changed from ${shown} to ${current ?? 'none'} while you were looking; nothing was approved — run approve again`,
    );
  }
}

/** GET …/health, or the same view built from the ReleaseInventory. */
export async function readHealth(ctx: Ctx, name: string): Promise<HealthResult> {
  const viaApi = await viaApiOr(ctx, () =>
    ctx.client.request<HealthResult>({ method: 'GET', path: releasePath(ctx.namespace, name, 'health') }),
  );
  if (viaApi !== undefined) return viaApi;
  const release = await mustGetRelease(ctx, name);
  return healthResult(release, await getInventory(ctx, name));
}

/** GET …/history, or the same view from the Release status and the render store. */
export async function readHistory(ctx: Ctx, release: Release): Promise<HistoryResult> {
  const name = nameOf(release);
  const viaApi = await viaApiOr(ctx, () =>
    ctx.client.request<HistoryResult>({ method: 'GET', path: releasePath(ctx.namespace, name, 'history') }),
  );
  if (viaApi !== undefined) return viaApi;
  return historyResult(release, await ctx.store.list(ctx.namespace, name));
}

/** GET …/renders/{ref}, or the render store; undefined when no complete copy is stored. */
export async function readRender(ctx: Ctx, name: string, ref: string): Promise<Render | undefined> {
  const viaApi = await viaApiOr(ctx, async () => {
    try {
      return await ctx.client.request<Render>({
        method: 'GET',
        // Unmasked: diff and approve dry-run the render's objects (they mask what they print).
        path: `${releasePath(ctx.namespace, name, `renders/${ref}`)}?showSecrets=true`,
      });
    } catch (err) {
      // a 404 from the API (not the apiserver) is "not stored": no fallback would find more
      if (isKubeError(err) && err.code === 404) return null;
      throw err;
    }
  });
  if (viaApi === null) return undefined;
  if (viaApi !== undefined) return { hooks: viaApi.hooks, objects: viaApi.objects };
  return ctx.store.get(ctx.namespace, name, ref);
}

let availability: Promise<ApiAvailability> | undefined;

/** The API's answer when the group is served; undefined (read it directly) when it is not. */
async function viaApiOr<T>(ctx: Ctx, call: () => Promise<T>): Promise<T | undefined> {
  availability ??= apiAvailability(ctx.client);
  const a = await availability;
  if (a.kind === 'absent') return undefined;
  if (a.kind === 'unavailable') {
    ctx.note(`note: the convoy API is not reachable (${a.message}); reading from the cluster directly`);
    return undefined;
  }
  return call();
}
