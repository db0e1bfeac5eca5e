// applyAll and dryRunAll over an injected client that records each call: the order of ranks (Namespaces,
// CRDs waited Established, the rest), the bound on applies in flight never exceeded, and a failure midway
// (what the API accepted is reported through onApplied, nothing starts after it, the earliest rejected
// object is named). Kubernetes semantics are not under test here: the e2e files kube-apply, release-sync
// and release-inventory-pending run the same code on a real API server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeClient, RawRequest } from '../../../kube/client.ts';
import { KubeApiError } from '../../../kube/errors.ts';
import type { Obj } from '../../../render/types.ts';
import { applyAll, DEPLOY_PARALLEL, dryRunAll, ObjectApplyError } from './deployer.ts';

const cm = (name: string): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'team-a' },
});
const ns = (name: string): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const crd = (name: string): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: { group: 'example.com', names: { kind: 'Widget' } },
});
const widget = (name: string): Obj => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'team-a' },
});

interface Call {
  readonly op: 'start' | 'end' | 'get';
  readonly name: string;
  readonly dryRun: boolean;
}

/**
 * A client whose applies answer after a few turns of the event loop (so several are in flight), fail for
 * the names in `reject` with `code`, and whose CRD reads say Established after `establishedAfter` reads.
 */
function recordingClient(opts: {
  readonly reject?: ReadonlySet<string>;
  readonly code?: number;
  readonly establishedAfter?: number;
  /** Names whose apply takes longer than the others' (it ends after later ones). */
  readonly slow?: ReadonlySet<string>;
}) {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let crdReads = 0;
  const client = {
    pathOf: async (ref: { kind: string; name?: string }) => `/${ref.kind}/${ref.name ?? ''}`,
    request: async (req: RawRequest) => {
      const name = (req.body as Obj).metadata.name ?? '';
      const dryRun = req.query?.dryRun === 'All';
      calls.push({ op: 'start', name, dryRun });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Yield a few turns so that other workers start before this one ends.
      const turns = opts.slow?.has(name) ? 20 : 3;
      for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
      inFlight--;
      calls.push({ op: 'end', name, dryRun });
      if (opts.reject?.has(name))
        throw new KubeApiError(opts.code ?? 422, 'Invalid', `${name} is invalid`, [], undefined);
      return req.body;
    },
    get: async (ref: { name: string }) => {
      calls.push({ op: 'get', name: ref.name, dryRun: false });
      crdReads++;
      const established = crdReads > (opts.establishedAfter ?? 0);
      return { status: { conditions: [{ type: 'Established', status: established ? 'True' : 'False' }] } };
    },
  };
  return {
    client: client as unknown as KubeClient,
    calls,
    maxInFlight: () => maxInFlight,
  };
}

const deploy = { releaseLabel: 'team-a.web', releaseUid: 'uid-1' };
const many = (n: number) => Array.from({ length: n }, (_, i) => cm(`cm-${String(i).padStart(2, '0')}`));

describe('applyAll: bounded parallelism', () => {
  const bounds: [string, number | undefined, number, number][] = [
    ['the default bound over 30 objects', undefined, 30, DEPLOY_PARALLEL],
    ['a bound of 1 is sequential', 1, 5, 1],
    ['a bound of 3 over 10 objects', 3, 10, 3],
    ['fewer objects than the bound', 8, 2, 2],
  ];
  for (const [name, parallel, n, want] of bounds) {
    it(name, async () => {
      const c = recordingClient({});
      const applied: string[] = [];
      await applyAll(c.client, many(n), {
        ...deploy,
        ...(parallel === undefined ? {} : { parallel }),
        onApplied: (o) => applied.push(o.metadata.name ?? ''),
      });
      assert.equal(c.maxInFlight(), want, 'applies in flight at most');
      assert.equal(applied.length, n, 'onApplied for every object');
      assert.deepEqual(
        c.calls.filter((x) => x.op === 'start').map((x) => x.name),
        many(n).map((o) => o.metadata.name),
        'started in the order given',
      );
    });
  }

  it('Namespaces, then CRDs waited Established, then the rest; no rank overlaps the next', async () => {
    const c = recordingClient({ establishedAfter: 2 });
    const objects = [widget('w1'), cm('a'), crd('widgets.example.com'), ns('team-a'), cm('b')];
    await applyAll(c.client, objects, deploy);
    const trace = c.calls.map((x) => `${x.op} ${x.name}`);
    const rankOf = (name: string) => (name === 'team-a' ? 0 : name === 'widgets.example.com' ? 1 : 2);
    const lastEnd = (r: number) =>
      Math.max(...trace.flatMap((t, i) => (t.startsWith('end ') && rankOf(t.slice(4)) === r ? [i] : [])));
    const firstStart = (r: number) =>
      Math.min(...trace.flatMap((t, i) => (t.startsWith('start ') && rankOf(t.slice(6)) === r ? [i] : [])));
    assert.ok(lastEnd(0) < firstStart(1), `Namespaces done before the CRD: ${trace.join(', ')}`);
    // the CRD is read until Established (3 reads: False, False, True) before any custom resource
    const established = trace.lastIndexOf('get widgets.example.com');
    assert.equal(trace.filter((t) => t === 'get widgets.example.com').length, 3);
    assert.ok(lastEnd(1) < established && established < firstStart(2), trace.join(', '));
  });

  it('a failure midway: what the API accepted is reported, nothing starts after it, it is named', async () => {
    const c = recordingClient({ reject: new Set(['cm-04']) });
    const applied: string[] = [];
    const objects = many(20);
    const err = await applyAll(c.client, objects, {
      ...deploy,
      parallel: 4,
      onApplied: (o) => applied.push(o.metadata.name ?? ''),
    }).then(
      () => assert.fail('applyAll resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ObjectApplyError);
    assert.match(err.message, /ConfigMap.*cm-04.*cm-04 is invalid/);
    assert.equal(err.httpStatus, 422);
    const started = c.calls.filter((x) => x.op === 'start').map((x) => x.name);
    const ended = c.calls.filter((x) => x.op === 'end').map((x) => x.name);
    assert.deepEqual([...started].sort(), [...ended].sort(), 'every apply started also finished');
    const failedAt = c.calls.findIndex((x) => x.op === 'end' && x.name === 'cm-04');
    assert.ok(
      c.calls.slice(failedAt).every((x) => x.op !== 'start'),
      `no apply starts after the rejection: ${started.join(', ')}`,
    );
    assert.ok(started.length < objects.length, 'the rest of the wave was not applied');
    assert.deepEqual(
      [...applied].sort(),
      started.filter((n) => n !== 'cm-04').sort(),
      'onApplied for each accepted object, not the rejected one',
    );
  });

  it('several rejected at once: the earliest in the given order is named, not the first to answer', async () => {
    const c = recordingClient({ reject: new Set(['cm-03', 'cm-01']), slow: new Set(['cm-01']) });
    const err = await applyAll(c.client, many(6), { ...deploy, parallel: 6 }).catch((e: unknown) => e);
    assert.ok(err instanceof ObjectApplyError);
    assert.equal(err.object.metadata.name, 'cm-01');
  });

  it('a rejected Namespace: no object of a later rank is applied', async () => {
    const c = recordingClient({ reject: new Set(['team-a']) });
    await assert.rejects(applyAll(c.client, [ns('team-a'), cm('a'), cm('b')], deploy), ObjectApplyError);
    assert.deepEqual(
      c.calls.filter((x) => x.op === 'start').map((x) => x.name),
      ['team-a'],
    );
  });
});

describe('dryRunAll: bounded parallelism', () => {
  it('dry runs every object, at most the bound at once', async () => {
    const c = recordingClient({});
    const r = await dryRunAll(c.client, many(25), { ...deploy, parallel: 5 });
    assert.deepEqual(r.skipped, []);
    assert.equal(c.maxInFlight(), 5);
    assert.ok(c.calls.every((x) => x.dryRun));
    assert.equal(c.calls.filter((x) => x.op === 'start').length, 25);
  });

  it('checks every object even after a rejection, and names the earliest rejected', async () => {
    const c = recordingClient({ reject: new Set(['cm-07', 'cm-02']) });
    const err = await dryRunAll(c.client, many(10), { ...deploy, parallel: 3 }).catch((e: unknown) => e);
    assert.ok(err instanceof ObjectApplyError);
    assert.equal(err.object.metadata.name, 'cm-02');
    assert.equal(c.calls.filter((x) => x.op === 'start').length, 10);
  });

  it('skips a custom resource whose CRD is in the same render and not installed', async () => {
    const c = recordingClient({ reject: new Set(['w1']), code: 404 });
    const r = await dryRunAll(c.client, [crd('widgets.example.com'), widget('w1')], deploy);
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0] ?? '', /w1: not yet installed/);
  });
});
