// Reading Lease objects from the API server: the paths, and a GET that says "none" on 404.
import { isNotFound } from '../kube/errors.ts';
import type { Lease } from './lease.ts';
import type { Transport } from './transport.ts';

export function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

export async function readLease(t: Transport, namespace: string, name: string): Promise<Lease | undefined> {
  try {
    return await t.request<Lease>('GET', leasePath(namespace, name));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
