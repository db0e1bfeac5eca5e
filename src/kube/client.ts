// The only way convoy talks to a Kubernetes API: a raw JSON client (KubeClient) for any kind, which sends
// bodies exactly as given (no model serialization that could drop unknown fields or turn integers into
// strings) over the shared keep-alive transport and resolves kinds to resources through discovery.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ObjectHeader, ObjectMeta } from '../api/types.ts';
import { fromResponse } from './errors.ts';
import { collectPages } from './pages.ts';
import { KubeTransport, type RawRequest } from './transport.ts';

export type { Method, RawRequest } from './transport.ts';

/** A resource as discovery describes it. */
export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** plural resource name, e.g. "deployments" */
  readonly plural: string;
  readonly namespaced: boolean;
}

/** Names an object for paths: apiVersion + kind, and namespace/name where they apply. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Path of a collection or object; pure, given the resource. */
export function resourcePath(
  info: ResourceInfo,
  ref: { readonly namespace?: string; readonly name?: string },
  subresource?: string,
): string {
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  let path = base;
  if (info.namespaced) {
    if (ref.namespace === undefined || ref.namespace === '') {
      if (ref.name !== undefined) throw new Error(`${info.kind} ${ref.name}: a namespace is required`);
    } else {
      path += `/namespaces/${encodeURIComponent(ref.namespace)}`;
    }
  }
  path += `/${info.plural}`;
  if (ref.name !== undefined) path += `/${encodeURIComponent(ref.name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}

export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; the server answers at most this many items and a continue token for the rest. */
  readonly limit?: number;
  /** The token of the previous page. */
  readonly continue?: string | undefined;
  /**
   * Items as PartialObjectMetadata (apiVersion, kind, metadata only): a list that needs names,
   * labels and annotations does not pay for the objects' bodies (e.g. Secret data).
   */
  readonly metadataOnly?: boolean;
}

export interface ListPage<T> {
  readonly items: T[];
  /** undefined on the last page */
  readonly continue: string | undefined;
  readonly resourceVersion: string | undefined;
}

/** An item of a metadata-only list. */
export interface PartialObjectMetadata {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
}

// Plain JSON after it, as kubectl asks: a server that cannot convert answers with the full list,
// which has the same metadata.
export const METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** The query string of a list; pure. */
export function listQuery(opts: ListOptions): Record<string, string | undefined> {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    limit: opts.limit === undefined ? undefined : String(opts.limit),
    continue: opts.continue === '' ? undefined : opts.continue,
  };
}

interface DiscoveryList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly transport: KubeTransport;
  readonly #discovery = new Map<string, Promise<readonly ResourceInfo[]>>();

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
    this.transport = KubeTransport.for(kubeConfig);
  }

  /** Sends one request; returns the parsed JSON body, or throws KubeApiError. */
  request<T = unknown>(req: RawRequest): Promise<T> {
    return this.transport.request<T>(req);
  }

  /** Discovery for one apiVersion, cached; `refresh` forgets the cached answer first. */
  async resources(apiVersion: string, refresh = false): Promise<readonly ResourceInfo[]> {
    if (refresh) this.#discovery.delete(apiVersion);
    let cached = this.#discovery.get(apiVersion);
    if (cached === undefined) {
      const { group, version } = splitApiVersion(apiVersion);
      const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
      cached = this.request<DiscoveryList>({ method: 'GET', path }).then((list) =>
        (list.resources ?? [])
          .filter((r) => !r.name.includes('/'))
          .map((r) => ({ group, version, kind: r.kind, plural: r.name, namespaced: r.namespaced })),
      );
      this.#discovery.set(apiVersion, cached);
      cached.catch(() => this.#discovery.delete(apiVersion));
    }
    return cached;
  }

  /** The resource serving `kind` in `apiVersion`; asks discovery again once if the kind is new (a CRD just installed). */
  async resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const find = (list: readonly ResourceInfo[]) => list.find((r) => r.kind === kind);
    const noSuchKind = () =>
      fromResponse(404, {
        reason: 'NotFound',
        message: `no such kind ${kind} in ${apiVersion}: is its CRD installed?`,
      });
    // A failed read of the cached discovery is not hidden: the fresh read below repeats it and reports
    // its error (or the missing kind).
    const cached = await this.resources(apiVersion).then(find, (): undefined => undefined);
    if (cached !== undefined) return cached;
    let fresh: readonly ResourceInfo[];
    try {
      fresh = await this.resources(apiVersion, true);
    } catch (err) {
      // An apiVersion the server does not serve at all answers discovery with a bare "404 page not found".
      if ((err as { code?: unknown }).code === 404) throw noSuchKind();
      throw err;
    }
    const found = find(fresh);
    if (found === undefined) throw noSuchKind();
    return found;
  }

  async pathOf(ref: ObjectRef, subresource?: string): Promise<string> {
    return resourcePath(await this.resourceFor(ref.apiVersion, ref.kind), ref, subresource);
  }

  /** GET one object; undefined when it does not exist. */
  async get<T>(ref: ObjectRef & { readonly name: string }): Promise<T | undefined> {
    try {
      return await this.request<T>({ method: 'GET', path: await this.pathOf(ref) });
    } catch (err) {
      if (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 404)
        return undefined;
      throw err;
    }
  }

  async list<T>(ref: ObjectRef, query?: { labelSelector?: string; fieldSelector?: string }): Promise<T[]> {
    const list = await this.request<{ items?: T[] }>({ method: 'GET', path: await this.pathOf(ref), query });
    return list.items ?? [];
  }

  /** One page of a collection; follow `continue` until it is undefined for the rest. */
  async listPage<T>(ref: ObjectRef, opts: ListOptions = {}): Promise<ListPage<T>> {
    const list = await this.request<{
      items?: T[];
      metadata?: { continue?: string; resourceVersion?: string };
    }>({
      method: 'GET',
      path: await this.pathOf(ref),
      query: listQuery(opts),
      ...(opts.metadataOnly === true ? { accept: METADATA_LIST_ACCEPT } : {}),
    });
    return {
      items: list.items ?? [],
      // The server sends "" (or nothing) on the last page.
      continue: list.metadata?.continue || undefined,
      resourceVersion: list.metadata?.resourceVersion,
    };
  }

  /**
   * Every item of a collection, read `limit` at a time (each page a consistent snapshot of the first);
   * starts over when the snapshot expired mid-way (410 Gone), see pages.ts.
   */
  listAll<T>(ref: ObjectRef, opts: Omit<ListOptions, 'continue'> = {}): Promise<T[]> {
    return collectPages((cont) => this.listPage<T>(ref, { ...opts, continue: cont }));
  }

  async create<T>(obj: ObjectHeader, query?: { dryRun?: 'All'; fieldManager?: string }): Promise<T> {
    const path = await this.pathOf({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace,
    });
    return this.request<T>({ method: 'POST', path, body: obj, query });
  }

  /**
   * PUT the whole object (update). With metadata.resourceVersion set, a write over a newer version
   * fails with 409 Conflict; without it, it overwrites whatever is there.
   */
  async replace<T>(obj: ObjectHeader, query?: { dryRun?: 'All'; fieldManager?: string }): Promise<T> {
    const name = obj.metadata.name;
    if (name === undefined || name === '') throw new Error(`replace ${obj.kind}: metadata.name is required`);
    const path = await this.pathOf({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace,
      name,
    });
    return this.request<T>({ method: 'PUT', path, body: obj, query });
  }

  /** DELETE; returns false when the object was already gone. */
  async delete(
    ref: ObjectRef & { readonly name: string },
    options: { propagationPolicy?: 'Foreground' | 'Background' | 'Orphan'; uid?: string } = {},
  ): Promise<boolean> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
    if (options.uid !== undefined) body.preconditions = { uid: options.uid };
    try {
      await this.request({ method: 'DELETE', path: await this.pathOf(ref), body });
      return true;
    } catch (err) {
      if (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 404) return false;
      throw err;
    }
  }
}

export function makeKubeClient(kc: KubeConfig): KubeClient {
  return new KubeClient(kc);
}
