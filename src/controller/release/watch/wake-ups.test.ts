// The release controller's side of the inventory wake-up (seed R80, docs/design.md#rollout-wake-ups):
// watchWakeUps registered on a controller that records its watches, over informers whose caches hold the
// Releases. A health change wakes a Release whose rollout waits for a verdict, not a Failed or RolledBack
// one under a failurePolicy (those wait for the interval or a /sync); without a failurePolicy it wakes; and
// it does so in the queue's finish lane.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION } from '../../../api/constants.ts';
import type { Release, ReleaseInventory, RolloutState } from '../../../api/types.ts';
import type { SecondaryWatch } from '../../../runtime/index.ts';
import { cmEntry } from '../decide/fixtures.ts';
import { watchWakeUps } from './wake-ups.ts';

const R = `sha256:${'b'.repeat(64)}`;

function release(name: string, state: RolloutState | undefined, failurePolicy = true): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: 'app', uid: `u-${name}` },
    spec: {
      source: { inline: { manifests: '' } },
      ...(failurePolicy ? { failurePolicy: { deadline: '5m' } } : {}),
    },
    ...(state === undefined ? {} : { status: { rollout: { state, renderRef: R, revision: 'r' } } }),
  } as Release;
}

function inventory(name: string, state: 'Progressing' | 'Healthy'): ReleaseInventory {
  return {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name, namespace: 'app', labels: { 'convoy.kumodo.io/release': `app.${name}` } },
    entries: [cmEntry('cm-0', R, { state, assessedRenderRef: R })],
  } as ReleaseInventory;
}

const informer = (objects: readonly Release[]) => ({
  cache: {
    get: (key: string) => objects.find((o) => `${o.metadata.namespace}/${o.metadata.name}` === key),
    list: () => [...objects],
    byIndex: () => [],
  },
});

/** The keys the inventory watches enqueue for one inventory update, as the harness would. */
function wokenBy(releases: readonly Release[], before: ReleaseInventory, after: ReleaseInventory): string[] {
  return lanesWokenBy(releases, before, after).map(([key]) => key);
}

/** The same, each key with the queue lane its update goes to (queue.ts; change unless the watch says). */
function lanesWokenBy(
  releases: readonly Release[],
  before: ReleaseInventory,
  after: ReleaseInventory,
): [string, string][] {
  const watches: SecondaryWatch<never>[] = [];
  const controller = { watch: (w: SecondaryWatch<never>) => watches.push(w) } as unknown as Parameters<
    typeof watchWakeUps
  >[0];
  const inventories = informer([]);
  watchWakeUps(controller, {
    releases: informer(releases),
    inventories,
    leases: informer([]),
    clusters: informer([]),
    observerShards: 1,
    shardOfRelease: () => 0,
    now: () => 0,
  } as never);
  return watches
    .filter((w) => (w.informer as unknown) === inventories)
    .filter((w) => w.updateFilter?.(before as never, after as never) ?? true)
    .flatMap((w) =>
      w
        .keys(after as never)
        .map((k): [string, string] => [k, w.updatePriority?.(before as never, after as never) ?? 'change']),
    );
}

test('R80: a health change wakes a Progressing rollout, not a Failed or RolledBack one', () => {
  const rows: [string, Release, string[]][] = [
    ['Progressing', release('web', 'Progressing'), ['app/web']],
    ['Succeeded (lastHealthy may follow)', release('web', 'Succeeded'), ['app/web']],
    ['no rollout yet', release('web', undefined), ['app/web']],
    ['Failed: the interval or a /sync only', release('web', 'Failed'), []],
    ['RolledBack: the interval or a /sync only', release('web', 'RolledBack'), []],
    [
      'RolledBack without a failurePolicy: woken, for lastHealthy',
      release('web', 'RolledBack', false),
      ['app/web'],
    ],
  ];
  for (const [name, r, want] of rows)
    assert.deepEqual(wokenBy([r], inventory('web', 'Progressing'), inventory('web', 'Healthy')), want, name);
});

test('R80: an inventory update that changes no health wakes nothing', () => {
  const same = inventory('web', 'Healthy');
  const drifted = { ...same, metadata: { ...same.metadata, resourceVersion: '2' } };
  assert.deepEqual(wokenBy([release('web', 'Progressing')], same, drifted), []);
});

test('a health change that leaves every entry Healthy queues its Release in the finish lane; one on the way, not', () => {
  const web = [release('web', 'Progressing')];
  assert.deepEqual(lanesWokenBy(web, inventory('web', 'Progressing'), inventory('web', 'Healthy')), [
    ['app/web', 'finish'],
  ]);
  const healthy = inventory('web', 'Healthy');
  const half = {
    ...healthy,
    entries: [...(healthy.entries ?? []), cmEntry('cm-1', R, { state: 'Progressing', assessedRenderRef: R })],
  };
  const none = { ...half, entries: half.entries.map((e) => ({ ...e, state: 'Progressing' as const })) };
  assert.deepEqual(lanesWokenBy(web, none, half), [['app/web', 'change']]);
});
