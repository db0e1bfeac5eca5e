import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryEntry } from '../../../../api/types.ts';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import { type PlanPostSyncInput, planPostSync, postSyncReady } from './post-sync.ts';

const T0 = '2025-06-01T11:00:00Z';
const web = { group: 'apps', kind: 'Deployment', namespace: 'app', name: 'web' };
const cfg = { group: '', kind: 'ConfigMap', namespace: 'app', name: 'cfg' };
const rec = (
  o: typeof web,
  renderRef: string,
  state?: InventoryEntry['state'],
  assessed = renderRef,
): InventoryEntry => ({
  ...o,
  renderRef,
  ...(state === undefined ? {} : { state, assessedRenderRef: assessed }),
});

describe('postSyncReady', () => {
  const table: [string, InventoryEntry[], boolean, boolean | string][] = [
    ['all applied and Healthy for R', [rec(web, R1, 'Healthy'), rec(cfg, R1, 'Healthy')], true, true],
    [
      'an object still from the previous render (wave not applied)',
      [rec(web, R1, 'Healthy'), rec(cfg, R2, 'Healthy')],
      true,
      'NotYetApplied',
    ],
    ['an object not recorded at all', [rec(web, R1, 'Healthy')], true, 'NotYetApplied'],
    ['an object Progressing', [rec(web, R1, 'Progressing'), rec(cfg, R1, 'Healthy')], true, 'NotYetHealthy'],
    [
      'Healthy, but assessed for the previous render',
      [rec(web, R1, 'Healthy', R2), rec(cfg, R1, 'Healthy')],
      true,
      'NotYetHealthy',
    ],
    ['not assessed yet', [rec(web, R1), rec(cfg, R1)], true, 'NotYetHealthy'],
    ['no healthAssessment: applied is enough', [rec(web, R1), rec(cfg, R1)], false, true],
  ];
  for (const [name, entries, healthAssessed, want] of table) {
    it(name, () => {
      const r = postSyncReady({ renderRef: R1, objects: [web, cfg], entries, healthAssessed });
      assert.equal(r.ready ? true : r.reason, want);
    });
  }
});

describe('planPostSync', () => {
  const hooks = [hookObj('smoke', 'PostSync'), hookObj('migrate', 'PreSync')];
  const healthy = [rec(web, R1, 'Healthy'), rec(cfg, R1, 'Healthy')];
  const base: PlanPostSyncInput = {
    renderRef: R1,
    objects: [web, cfg],
    entries: healthy,
    healthAssessed: true,
    hooks,
    hookEntries: [],
    now: NOW,
  };
  it('arms once the objects are healthy', () => assert.equal(planPostSync(base).kind, 'arm'));
  it('notReady while they are not', () => {
    const d = planPostSync({ ...base, entries: [rec(web, R1, 'Degraded'), rec(cfg, R1, 'Healthy')] });
    assert.equal(d.kind, 'notReady');
  });
  it('once armed, follows the hooks even if an object turns unhealthy', () => {
    const running = entry('smoke', 'PostSync', R1, T0, { state: 'Running' });
    const d = planPostSync({
      ...base,
      entries: [rec(web, R1, 'Degraded'), rec(cfg, R1, 'Healthy')],
      hookEntries: [running],
    });
    assert.equal(d.kind, 'waiting');
  });
  it('none without PostSync hooks', () => {
    assert.deepEqual(planPostSync({ ...base, hooks: [hookObj('migrate', 'PreSync')] }), { kind: 'none' });
  });
  it('a forced sync makes the earlier run stale: PostSync runs again once the objects are healthy', () => {
    const done = entry('smoke', 'PostSync', R1, T0, { state: 'Succeeded', finishedAt: T0 });
    const forcedAt = '2025-06-01T11:30:00Z';
    assert.equal(planPostSync({ ...base, hookEntries: [done], forcedAt }).kind, 'arm');
    assert.equal(
      planPostSync({
        ...base,
        entries: [rec(web, R1, 'Progressing'), rec(cfg, R1, 'Healthy')],
        hookEntries: [done],
        forcedAt,
      }).kind,
      'notReady',
    );
  });
});
