// One probe of a Cluster: GET /version through its kubeconfig (the local cluster's own credentials
// when it has none), bounded by a timeout, reduced to a ProbeResult. describeProbeError is the pure
// part: it turns what fetch/undici and the API throw into one line naming the server and the cause.
import type { Cluster } from '../../api/types.ts';
import { isKubeError } from '../../kube/errors.ts';
import type { ClusterClients } from './access.ts';
import type { ProbeResult } from './status.ts';

type VersionInfo = { readonly gitVersion?: string };

export async function probeCluster(
  cluster: Cluster,
  clients: ClusterClients,
  timeoutMs: number,
): Promise<ProbeResult> {
  if (cluster.spec.paused === true) return { kind: 'paused' };
  const ref = cluster.spec.kubeconfigSecretRef;
  let client = clients.local;
  if (ref !== undefined) {
    const access = await clients.remote(cluster, ref);
    if (access.kind !== 'ok') return access;
    client = access.client;
  }
  const server = client.kubeConfig.getCurrentCluster()?.server ?? '(no server)';
  try {
    const v = await client.request<VersionInfo>({
      method: 'GET',
      path: '/version',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (typeof v?.gitVersion !== 'string' || v.gitVersion === '') {
      return { kind: 'unreachable', message: `${server}/version answered without a gitVersion` };
    }
    return { kind: 'reachable', version: v.gitVersion };
  } catch (err) {
    return { kind: 'unreachable', message: describeProbeError(err, server, timeoutMs) };
  }
}

/** "cannot reach <server>: <cause>"; never includes request headers (they carry credentials). */
export function describeProbeError(err: unknown, server: string, timeoutMs: number): string {
  return `cannot reach ${server}: ${cause(err, timeoutMs)}`;
}

function cause(err: unknown, timeoutMs: number): string {
  if (isKubeError(err)) return `GET /version answered ${err.code} ${err.reason}: ${err.apiMessage}`;
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError' || err.name === 'AbortError') {
    return `no answer within ${formatSeconds(timeoutMs)}`;
  }
  // fetch wraps the socket error: "fetch failed" { cause: "connect ECONNREFUSED 127.0.0.1:1234" }.
  const inner = (err as { cause?: unknown }).cause;
  if (inner instanceof Error && inner.message !== '') {
    if (inner.name === 'TimeoutError' || inner.name === 'AbortError') {
      return `no answer within ${formatSeconds(timeoutMs)}`;
    }
    return inner.message;
  }
  return err.message;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
