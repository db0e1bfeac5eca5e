// Registers an apiserver running on loopback (convoy's HTTP API in a test or `convoy dev`) with
// the aggregation layer of a control plane started with `aggregation: true`. There is no
// kube-proxy and no pod network here, so the Service is an ExternalName pointing at localhost:
// the aggregator dials externalName:<APIService port> and checks the serving cert against the
// Service's DNS name (<name>.<namespace>.svc) and the caBundle.
import {
  ApiException,
  ApiregistrationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1APIService,
  type V1Namespace,
  type V1Service,
} from '@kubernetes/client-node';
import { errorMessage } from '../lib/errors.ts';

export interface ApiServiceRegistration {
  /** Port the aggregated apiserver listens on (on `host`). */
  readonly port: number;
  /** PEM the serving cert chains to (a self-signed cert is its own CA); its SANs must include `<serviceName>.<namespace>.svc`. */
  readonly caPem: string;
  /** Defaults: convoy's HTTP API as in deploy/api (api.convoy.kumodo.io/v1alpha1, convoy-system/convoy-api). */
  readonly group?: string;
  readonly version?: string;
  readonly namespace?: string;
  readonly serviceName?: string;
  /** What the ExternalName resolves to; default localhost. */
  readonly host?: string;
  /** How long to wait for the APIService to become Available (default 60 s). */
  readonly timeoutMs?: number;
}

export interface ApiServiceObjects {
  readonly namespace: V1Namespace;
  readonly service: V1Service;
  readonly apiService: V1APIService;
}

export class ApiServiceUnavailableError extends Error {
  override name = 'ApiServiceUnavailableError';
}

/** The Namespace, ExternalName Service and APIService that route a group/version to host:port. */
export function apiServiceObjects(r: ApiServiceRegistration): ApiServiceObjects {
  const group = r.group ?? 'api.convoy.kumodo.io';
  const version = r.version ?? 'v1alpha1';
  const namespace = r.namespace ?? 'convoy-system';
  const name = r.serviceName ?? 'convoy-api';
  return {
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { type: 'ExternalName', externalName: r.host ?? 'localhost' },
    },
    apiService: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${version}.${group}` },
      spec: {
        group,
        version,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
        service: { namespace, name, port: r.port },
        caBundle: Buffer.from(r.caPem).toString('base64'),
      },
    },
  };
}

const isConflict = (err: unknown): boolean => err instanceof ApiException && err.code === 409;

/**
 * Creates (or updates) the three objects and waits until the APIService is Available, i.e. the
 * aggregator reached the server's discovery. On an update from one live server to another,
 * Available may still be the old target's answer for a moment: the condition has no generation.
 */
export async function registerApiService(
  kubeConfig: KubeConfig,
  registration: ApiServiceRegistration,
): Promise<V1APIService> {
  const objs = apiServiceObjects(registration);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apireg = kubeConfig.makeApiClient(ApiregistrationV1Api);
  const namespace = objs.service.metadata?.namespace ?? '';
  const serviceName = objs.service.metadata?.name ?? '';
  const apiServiceName = objs.apiService.metadata?.name ?? '';

  await core.createNamespace({ body: objs.namespace }).catch((err: unknown) => {
    if (!isConflict(err)) throw err;
  });
  try {
    await core.createNamespacedService({ namespace, body: objs.service });
  } catch (err) {
    if (!isConflict(err)) throw err;
    const live = await core.readNamespacedService({ namespace, name: serviceName });
    await core.replaceNamespacedService({
      namespace,
      name: serviceName,
      body: {
        ...objs.service,
        metadata: { ...objs.service.metadata, resourceVersion: live.metadata?.resourceVersion },
      },
    });
  }
  try {
    await apireg.createAPIService({ body: objs.apiService });
  } catch (err) {
    if (!isConflict(err)) throw err;
    const live = await apireg.readAPIService({ name: apiServiceName });
    await apireg.replaceAPIService({
      name: apiServiceName,
      body: {
        ...objs.apiService,
        metadata: { ...objs.apiService.metadata, resourceVersion: live.metadata?.resourceVersion },
      },
    });
  }
  return waitAvailable(apireg, apiServiceName, registration.port, registration.timeoutMs ?? 60_000);
}

async function waitAvailable(
  apireg: ApiregistrationV1Api,
  name: string,
  port: number,
  timeoutMs: number,
): Promise<V1APIService> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not read yet';
  for (;;) {
    try {
      const live = await apireg.readAPIService({ name });
      const available = live.status?.conditions?.find((c) => c.type === 'Available');
      if (available?.status === 'True') return live;
      last = available
        ? `${available.status} ${available.reason ?? ''}: ${available.message ?? ''}`
        : 'no condition yet';
    } catch (err) {
      last = `read failed: ${errorMessage(err)}`;
    }
    if (Date.now() > deadline) {
      throw new ApiServiceUnavailableError(
        `APIService ${name} not Available after ${timeoutMs} ms (last: ${last}); is the server listening on port ${port} with a cert for the Service's DNS name?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
