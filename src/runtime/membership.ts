// This replica's side of shard membership: it renews its own member Lease, lists the group's
// member Leases (one LIST a round), and deletes those of replicas gone for long. The pure
// parts (names, who is live, what is garbage) are in member.ts.
import type { Logger } from 'pino';
import { isConflict, isKubeError, isNotFound } from '../kube/errors.ts';
import { decideLease, type Lease, releasedSpec } from './lease.ts';
import { leasePath, readLease } from './lease-api.ts';
import { liveMembers, MEMBER_LABEL, memberLeaseName, memberSelector, staleMembers } from './member.ts';
import type { Transport } from './transport.ts';

export type MembershipOptions = {
  readonly transport: Transport;
  readonly namespace: string;
  readonly group: string;
  readonly identity: string;
  readonly durationSeconds: number;
  /** Delete member Leases that expired this long ago. */
  readonly gcAfterMs: number;
  readonly log?: Logger;
};

export class Membership {
  readonly name: string;
  readonly #o: MembershipOptions;
  /** Our Lease as last written: renewed without a read while nobody else touches it. */
  #lease: Lease | undefined;
  /** Off after a 403: without the delete verb, gone members' Leases are left in place. */
  #gc = true;

  constructor(o: MembershipOptions) {
    this.#o = o;
    this.name = memberLeaseName(o.group, o.identity);
  }

  async renew(now: number): Promise<void> {
    const cached = this.#lease;
    if (cached !== undefined) {
      try {
        this.#lease = await this.#write(cached, now);
        return;
      } catch (e) {
        this.#lease = undefined;
        // Changed or deleted under us: read it and decide again.
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
    }
    this.#lease = await this.#write(await readLease(this.#o.transport, this.#o.namespace, this.name), now);
  }

  /** Live members (sorted), or undefined when they could not be listed. Also collects gone members' Leases. */
  async list(now: () => number): Promise<string[] | undefined> {
    const { transport: t, namespace, group, identity } = this.#o;
    let items: Lease[];
    try {
      const path = `${leasePath(namespace)}?labelSelector=${encodeURIComponent(memberSelector(group))}`;
      items = (await t.request<{ items: Lease[] }>('GET', path)).items;
    } catch (e) {
      this.#o.log?.warn({ err: String(e) }, 'could not list members');
      return undefined;
    }
    const at = now();
    const members = liveMembers(items, group, at);
    // One collector (the first live member), so replicas do not all delete the same Leases.
    if (this.#gc && members[0] === identity) {
      for (const l of staleMembers(items, group, at, this.#o.gcAfterMs)) await this.#delete(l);
    }
    return members;
  }

  /** Gives up our member Lease so the others stop counting us at once. */
  async release(now: number): Promise<void> {
    this.#lease = undefined;
    try {
      const current = await readLease(this.#o.transport, this.#o.namespace, this.name);
      if (current?.spec?.holderIdentity !== this.#o.identity) return;
      await this.#o.transport.request('PUT', leasePath(this.#o.namespace, this.name), {
        ...current,
        spec: releasedSpec(current.spec ?? {}, now),
      });
      this.#o.log?.info({ lease: this.name }, 'released member lease');
    } catch (e) {
      this.#o.log?.warn({ lease: this.name, err: String(e) }, 'could not release member lease');
    }
  }

  async #write(current: Lease | undefined, now: number): Promise<Lease | undefined> {
    const { transport: t, namespace, group, identity } = this.#o;
    const d = decideLease(current, identity, now, this.#o.durationSeconds);
    const labels = { ...current?.metadata.labels, [MEMBER_LABEL]: group };
    switch (d.kind) {
      case 'wait':
        // Only another process with our identity can hold it: a misconfiguration.
        this.#o.log?.warn({ lease: this.name, holder: d.holder }, 'member lease held by another process');
        return undefined;
      case 'create':
        return await t.request<Lease>('POST', leasePath(namespace), {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.name, namespace, labels },
          spec: d.spec,
        });
      case 'renew':
      case 'acquire':
        if (current === undefined) return undefined;
        return await t.request<Lease>('PUT', leasePath(namespace, this.name), {
          ...current,
          metadata: { ...current.metadata, labels },
          spec: d.spec,
        });
    }
  }

  async #delete(l: Lease): Promise<void> {
    try {
      // Only the version judged stale: a member that came back in between keeps its Lease.
      await this.#o.transport.request('DELETE', leasePath(this.#o.namespace, l.metadata.name), {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions: { resourceVersion: l.metadata.resourceVersion },
      });
      this.#o.log?.info(
        { lease: l.metadata.name, holder: l.spec?.holderIdentity },
        'deleted a gone member lease',
      );
    } catch (e) {
      if (isKubeError(e) && e.code === 403) {
        this.#gc = false;
        this.#o.log?.warn(
          { err: String(e) },
          'may not delete leases: gone members leave their Leases behind',
        );
      } else if (!isConflict(e) && !isNotFound(e)) {
        this.#o.log?.warn({ lease: l.metadata.name, err: String(e) }, 'could not delete a gone member lease');
      }
    }
  }
}
