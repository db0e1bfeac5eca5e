// Property test of one reconcile plus status assembly: whatever the inventory holds, however the observer's
// liveness flaps between two readings, and whichever way the sync ends, no reconcile persists a rollout
// that has just turned Succeeded(R) without status.lastHealthy = R. reconcile runs for real over injected
// deps: an inline source, a render store that holds nothing, and clients that record each call and fail
// it (so a sync ends in its dry run, and a rollback finds no blob), as a flaky target cluster would.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { API_VERSION } from '../../api/constants.ts';
import type { InventoryEntry, Release, ReleaseInventory } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { mergeParts } from '../../kube/inventory-parts.ts';
import { InlineSource } from '../../render/inline.ts';
import { stageRender } from './act/stage-render.ts';
import { cmEntry } from './decide/fixtures.ts';
import { formatTime } from './decide/rollout/index.ts';
import { releaseStatus } from './decide/status.ts';
import { newProcessMemory, type ReleaseDeps } from './deps.ts';
import { reconcile } from './reconcile.ts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const OLD = `sha256:${'a'.repeat(64)}`;
const STATES = ['Healthy', 'Progressing', 'Degraded', 'Unknown', undefined] as const;

/**
 * A client whose every call is recorded and rejected, except discovery, which says ConfigMaps are
 * namespaced (a failed discovery fails the render, so nothing after it would run).
 */
function failingClient(calls: string[]): KubeClient {
  return new Proxy({} as KubeClient, {
    get:
      (_t, prop) =>
      (...args: unknown[]) => {
        calls.push(`${String(prop)} ${JSON.stringify(args[0] ?? null)?.slice(0, 80)}`);
        if (prop === 'resources')
          return Promise.resolve([
            { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
          ]);
        return Promise.reject(new Error(`target unreachable (${String(prop)})`));
      },
  });
}

/** The Release's inventory with these entries. */
function inventoryOf(entries: InventoryEntry[]): ReleaseInventory {
  return {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: 'web', namespace: 'app' },
    entries,
  };
}

function manifests(n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: app\ndata:\n  k: v\n`,
  ).join('---\n');
}

function baseRelease(n: number): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'web', namespace: 'app', uid: 'u-1', generation: 1 },
    spec: {
      source: { inline: { manifests: manifests(n) } },
      healthAssessment: { deadline: '1m' },
      failurePolicy: { deadline: '5m', rollback: 'OnFailure' },
    },
  };
}

function deps(
  liveness: readonly boolean[],
  inventory: ReleaseInventory | undefined,
  calls: string[],
): ReleaseDeps {
  let reading = 0;
  const client = failingClient(calls);
  return {
    local: client,
    store: {
      get: () => Promise.resolve(undefined),
      hooks: () => Promise.resolve(undefined),
      put: () => Promise.reject(new Error('store unreachable')),
      list: () => Promise.resolve([]),
      delete: () => Promise.resolve(),
      gc: () => Promise.resolve([]),
      deleteAll: () => Promise.resolve(),
    } as unknown as ReleaseDeps['store'],
    sources: { inline: InlineSource },
    resolveTarget: () =>
      Promise.resolve({ name: 'local', kubeConfig: {} as never, client, readClient: client }),
    // Each reading takes the next value: a Lease that lapses (or comes back) between two readings.
    observerLive: () => liveness[reading++ % liveness.length] ?? true,
    cachedInventory: () => (inventory === undefined ? undefined : mergeParts(inventory, [])),
    now: () => T0,
    log: { info() {}, warn() {}, error() {}, debug() {} } as unknown as ReleaseDeps['log'],
    memory: newProcessMemory(),
  };
}

const scenario = fc.record({
  objects: fc.integer({ min: 1, max: 3 }),
  liveness: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  // per object: recorded for R or for the old render or not at all, and how the observer assessed it
  entries: fc.array(
    fc.record({
      recorded: fc.constantFrom('R', 'old', 'none'),
      assessed: fc.constantFrom('R', 'old', 'none'),
      state: fc.constantFrom(...STATES),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  prior: fc.constantFrom('none', 'Progressing', 'Succeeded', 'Failed', 'RolledBack', 'ProgressingOld'),
  elapsedMin: fc.integer({ min: 0, max: 10 }),
  lastAttempted: fc.constantFrom('R', 'old', 'none'),
  lastHealthy: fc.constantFrom('old', 'none'),
});

describe('reconcile + status assembly (property)', () => {
  test('a rollout never turns Succeeded(R) without lastHealthy = R; R2: at most one transition a reconcile', async () => {
    const R = (await stageRender(baseRelease(1), deps([true], undefined, []))).renderRef;
    assert.match(R, /^sha256:/);
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const base = baseRelease(s.objects);
        const calls: string[] = [];
        const R = (await stageRender(base, deps([true], undefined, calls))).renderRef;
        const rev = 'inline:x';
        const ref = (w: string) => (w === 'R' ? R : OLD);
        const entries: InventoryEntry[] = s.entries
          .slice(0, s.objects)
          .flatMap((e, i) =>
            e.recorded === 'none'
              ? []
              : [
                  cmEntry(
                    `cm-${i}`,
                    ref(e.recorded),
                    e.assessed === 'none' || e.state === undefined
                      ? {}
                      : { state: e.state, assessedRenderRef: ref(e.assessed) },
                  ),
                ],
          );
        const inventory = inventoryOf(entries);
        const startedAt = formatTime(T0 - s.elapsedMin * 60_000);
        const stamp = (w: string) => ({ renderRef: ref(w), revision: rev, time: formatTime(T0 - 3_600_000) });
        const prior =
          s.prior === 'none'
            ? undefined
            : {
                state: s.prior === 'ProgressingOld' ? ('Progressing' as const) : s.prior,
                renderRef: s.prior === 'ProgressingOld' ? OLD : R,
                revision: rev,
                startedAt,
              };
        const release: Release = {
          ...base,
          status: {
            ...(prior === undefined ? {} : { rollout: prior }),
            ...(s.lastAttempted === 'none'
              ? {}
              : {
                  lastAttempted: { ...stamp(s.lastAttempted), applied: true, reason: 'Synced' },
                  lastSuccessful: stamp(s.lastAttempted),
                }),
            ...(s.lastHealthy === 'none' ? {} : { lastHealthy: stamp(s.lastHealthy) }),
          },
        };
        const outcome = await reconcile(release, deps(s.liveness, inventory, calls));
        const status = releaseStatus(release, outcome, T0);
        const turned =
          status.rollout?.state === 'Succeeded' &&
          !(prior?.state === 'Succeeded' && prior.renderRef === status.rollout.renderRef);
        if (turned) {
          assert.equal(
            status.lastHealthy?.renderRef,
            status.rollout?.renderRef,
            `Succeeded(${status.rollout?.renderRef}) written with lastHealthy ${status.lastHealthy?.renderRef} (liveness ${s.liveness}, result ${outcome.result.kind})`,
          );
        }
        // R2: each reconcile makes at most one transition, and a new render gives Progressing first.
        const edge = `${prior?.state ?? 'none'}(${prior?.renderRef === R ? 'R' : 'other'}) -> ${status.rollout?.state}`;
        assert.ok(oneTransition(prior, status.rollout, R), `not one transition: ${edge}`);
      }),
      { numRuns: 400, seed: 20 },
    );
  });

  test('the failure the property guards: the Lease lapsing between two readings', async () => {
    // Every object of R recorded and Healthy for R, R the attempt; the observer live at the first
    // reading, not at the second. One reading per reconcile: Succeeded and lastHealthy = R together.
    const base = baseRelease(2);
    const calls: string[] = [];
    const R = (await stageRender(base, deps([true], undefined, calls))).renderRef;
    const entries: InventoryEntry[] = [0, 1].map((i) =>
      cmEntry(`cm-${i}`, R, { state: 'Healthy', assessedRenderRef: R }),
    );
    const stamp = { renderRef: R, revision: 'inline:x', time: formatTime(T0 - 60_000) };
    const release: Release = {
      ...base,
      status: {
        rollout: { state: 'Progressing', renderRef: R, revision: 'inline:x', startedAt: stamp.time },
        lastAttempted: { ...stamp, applied: true, reason: 'Synced' },
        lastSuccessful: stamp,
        lastHealthy: { ...stamp, renderRef: OLD },
      },
    };
    const inventory = inventoryOf(entries);
    const d = deps([true, false], inventory, calls);
    const status = releaseStatus(release, await reconcile(release, d), T0);
    assert.equal(status.rollout?.state, 'Succeeded');
    assert.equal(status.lastHealthy?.renderRef, R);
    assert.deepEqual(
      calls.filter((c) => !c.startsWith('resources ')),
      [],
      'an up-to-date render makes no call but discovery',
    );
  });
});

/**
 * Whether `next` is `prior` or one step of the rollout table away from it (docs/design.md#rollout-rules):
 * a new render opens Progressing(R); Progressing(R) ends Succeeded, Failed or RolledBack; nothing else
 * changes in one reconcile (no forced sync in these scenarios).
 */
function oneTransition(
  prior: { readonly state: string; readonly renderRef: string } | undefined,
  next: { readonly state: string; readonly renderRef: string } | undefined,
  R: string,
): boolean {
  if (next === undefined) return prior === undefined;
  if (prior !== undefined && prior.state === next.state && prior.renderRef === next.renderRef) return true;
  if (prior === undefined || prior.renderRef !== next.renderRef)
    return next.state === 'Progressing' && next.renderRef === R;
  return prior.state === 'Progressing' && ['Succeeded', 'Failed', 'RolledBack'].includes(next.state);
}

describe('the wave gate (docs/design.md#wave-gate)', () => {
  test('R43: it runs only when stageSync runs: a RolledBack rollout returns at applyLastHealthy, whatever the waves', async () => {
    const base = baseRelease(2);
    const calls: string[] = [];
    const R = (await stageRender(base, deps([true], undefined, calls))).renderRef;
    // Wave 1 waits on wave 0, whose clock ran out long ago: a sync would meet the wave gate's timeout.
    const startedAt = formatTime(T0 - 3_600_000);
    const rollout = { state: 'RolledBack' as const, renderRef: R, revision: 'inline:x', startedAt };
    const release: Release = {
      ...base,
      spec: { ...base.spec, waves: [{ wave: 1, healthStrategy: 'WaitPrevious', timeout: '1m' }] },
      status: {
        rollout,
        waves: [{ renderRef: R, wave: 0, startedAt }],
        lastHealthy: { renderRef: OLD, revision: 'inline:old', time: startedAt },
      },
    };
    const inventory = inventoryOf([cmEntry('cm-0', R, { state: 'Degraded', assessedRenderRef: R })]);
    const after: string[] = [];
    const outcome = await reconcile(release, deps([true], inventory, after));
    // The last healthy render is not stored here: the rollback holds, and R is never synced.
    assert.equal(outcome.result.kind, 'rollbackHeld');
    assert.deepEqual(
      outcome.rollout,
      { kind: 'rollout', rollout },
      'the RolledBack rollout is held as it was',
    );
    assert.deepEqual(
      after.filter((c) => !c.startsWith('resources ')),
      [],
      'no dry run, no apply, no wave: stageSync did not run',
    );
  });
});

describe('suspend (docs/design.md#reconcile-order, step 0)', () => {
  // R applied and Degraded, its rollout started 10 minutes ago against a 5 m deadline with rollback
  // OnFailure: unsuspended, this reconcile rolls back to OLD (the control row); suspended, it must not.
  const cases = [
    { suspend: false, rolledBack: true },
    { suspend: true, rolledBack: false },
  ] as const;
  for (const c of cases) {
    test(`spec.suspend ${c.suspend}, rollout past its deadline: ${c.rolledBack ? 'rolls back' : 'neither synced nor rolled back, says Suspended'}`, async () => {
      const base = baseRelease(1);
      const R = (await stageRender(base, deps([true], undefined, []))).renderRef;
      const stamp = { renderRef: R, revision: 'inline:x', time: formatTime(T0 - 20 * 60_000) };
      const rollout = {
        state: 'Progressing' as const,
        renderRef: R,
        revision: 'inline:x',
        startedAt: formatTime(T0 - 10 * 60_000),
      };
      const release: Release = {
        ...base,
        spec: { ...base.spec, suspend: c.suspend },
        status: {
          rollout,
          lastAttempted: { ...stamp, applied: true, reason: 'Synced' },
          lastSuccessful: stamp,
          lastHealthy: { ...stamp, renderRef: OLD, time: formatTime(T0 - 3_600_000) },
        },
      };
      const inventory = inventoryOf([cmEntry('cm-0', R, { state: 'Degraded', assessedRenderRef: R })]);
      const calls: string[] = [];
      const d = deps([true], inventory, calls);
      const reads: string[] = [];
      const store = {
        ...d.store,
        get: (_ns: string, _name: string, ref: string) => {
          reads.push(ref);
          return Promise.resolve(undefined);
        },
      } as ReleaseDeps['store'];
      const outcome = await reconcile(release, { ...d, store });
      const status = releaseStatus(release, outcome, T0);
      const ready = status.conditions?.find((x) => x.type === 'Ready');
      if (c.rolledBack) {
        assert.equal(
          outcome.result.kind,
          'rollbackHeld',
          'the last healthy render is not stored: the rollback holds',
        );
        assert.deepEqual(reads, [OLD], 'the rollback reads the last healthy render');
        return;
      }
      assert.deepEqual(outcome.result, {
        kind: 'held',
        reason: 'Suspended',
        message: (outcome.result as { message: string }).message,
      });
      assert.equal(outcome.attempt.kind, 'none', 'no sync attempt');
      assert.deepEqual(reads, [], 'no rollback: the last healthy render is not even read');
      assert.deepEqual(calls, [], 'no call to the cluster: no render, no apply');
      assert.deepEqual(status.rollout, rollout, 'the rollout is left as it was (not Failed, not RolledBack)');
      assert.equal(status.lastAttempted?.renderRef, R);
      assert.equal(ready?.status, 'False');
      assert.equal(ready?.reason, 'Suspended');
      assert.match(ready?.message ?? '', /neither syncs nor rolls back/);
    });
  }
});
