import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../../../api/types.ts';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import { type HookArming, planHookPhase } from './plan.ts';
import {
  ANNOTATION_HOOK_CREATED_AT,
  ANNOTATION_HOOK_NAME,
  ANNOTATION_HOOK_RENDER_REF,
  type ExistingAction,
  existingWorkloadAction,
  hookWorkloadObject,
  type LiveWorkload,
  WORKLOAD_DEADLINE_MARGIN_S,
  workloadDeadlineSeconds,
} from './workload.ts';

const LABEL = 'app.web';
const T0 = '2025-06-01T11:00:00Z';

function armingOf(
  hooks = [hookObj('migrate', 'PreSync')],
  entries: InventoryHook[] = [],
  forcedAt?: string,
): HookArming {
  const d = planHookPhase({ phase: 'PreSync', hooks, renderRef: R1, entries, now: NOW, forcedAt });
  if (d.kind !== 'arm' || d.hooks[0] === undefined) throw new Error(`expected arm, got ${d.kind}`);
  return d.hooks[0];
}

describe('hookWorkloadObject', () => {
  it('renames, labels and annotates the render object', () => {
    const a = armingOf();
    const o = hookWorkloadObject(a, LABEL, 'fallback');
    assert.equal(o.metadata.name, a.workloadName);
    assert.equal(o.metadata.namespace, 'app');
    assert.equal(o.metadata.labels?.['convoy.kumodo.io/release'], LABEL);
    assert.deepEqual(o.metadata.annotations, {
      'convoy.kumodo.io/hook': 'PreSync',
      [ANNOTATION_HOOK_NAME]: 'migrate',
      [ANNOTATION_HOOK_RENDER_REF]: R1,
      [ANNOTATION_HOOK_CREATED_AT]: a.createdAt,
    });
  });
  it('uses the default namespace when the render left none', () => {
    const h = hookObj('migrate', 'PreSync');
    const { namespace: _, ...metadata } = h.metadata;
    const o = hookWorkloadObject(armingOf([{ ...h, metadata }]), LABEL, 'fallback');
    assert.equal(o.metadata.namespace, 'fallback');
  });
  it('gives a Pod restartPolicy Never unless it sets one', () => {
    const pod = (spec: object) => ({ ...hookObj('p', 'PreSync', { kind: 'Pod' }), spec });
    const never = hookWorkloadObject(armingOf([pod({ containers: [] })]), LABEL, 'x') as { spec?: object };
    assert.deepEqual(never.spec, { containers: [], restartPolicy: 'Never', activeDeadlineSeconds: 310 });
    const own = hookWorkloadObject(armingOf([pod({ restartPolicy: 'OnFailure' })]), LABEL, 'x') as {
      spec?: object;
    };
    assert.deepEqual(own.spec, { restartPolicy: 'OnFailure', activeDeadlineSeconds: 310 });
  });
  it('gives the workload a deadline just after the hook timeout', () => {
    const job = hookObj('m', 'PreSync', { timeout: '90s' });
    const o = hookWorkloadObject(armingOf([job]), LABEL, 'x') as {
      spec?: { activeDeadlineSeconds?: number };
    };
    assert.equal(o.spec?.activeDeadlineSeconds, 90 + WORKLOAD_DEADLINE_MARGIN_S);
  });
});

describe('workloadDeadlineSeconds', () => {
  const m = WORKLOAD_DEADLINE_MARGIN_S;
  const rows: [unknown, number, number][] = [
    [undefined, 300_000, 300 + m],
    [undefined, 1500, 2 + m],
    [undefined, 10, 1 + m],
    [60, 300_000, 60],
    [600, 300_000, 300 + m],
    [0, 300_000, 300 + m],
    ['60', 300_000, 300 + m],
    [1.5, 300_000, 300 + m],
  ];
  for (const [own, ms, want] of rows) {
    it(`own ${JSON.stringify(own)}, timeout ${ms} ms: ${want}s`, () =>
      assert.equal(workloadDeadlineSeconds(own, ms), want));
  }
});

describe('existingWorkloadAction', () => {
  const fresh = armingOf();
  const live = (
    annotations: Record<string, string>,
    extra: Partial<LiveWorkload['metadata']> = {},
  ): LiveWorkload => ({
    metadata: { uid: 'u1', labels: { 'convoy.kumodo.io/release': LABEL }, annotations, ...extra },
  });
  const ours = (createdAt: string, renderRef = R1) => ({
    [ANNOTATION_HOOK_NAME]: 'migrate',
    [ANNOTATION_HOOK_RENDER_REF]: renderRef,
    [ANNOTATION_HOOK_CREATED_AT]: createdAt,
  });
  const table: [string, HookArming, LiveWorkload, ExistingAction['kind']][] = [
    ['a run that died before recording it', fresh, live(ours('2025-06-01T11:59:00Z')), 'adopt'],
    [
      'an older run of R the inventory moved past (R1 → R2 → R1)',
      armingOf(undefined, [
        entry('migrate', 'PreSync', R2, '2025-06-01T11:30:00Z', {
          state: 'Succeeded',
          finishedAt: '2025-06-01T11:31:00Z',
        }),
      ]),
      live(ours(T0)),
      'replace',
    ],
    [
      'created before the previous arming finished',
      armingOf(undefined, [
        entry('migrate', 'PreSync', R2, '2025-06-01T10:00:00Z', {
          state: 'Failed',
          finishedAt: '2025-06-01T11:30:00Z',
        }),
      ]),
      live(ours('2025-06-01T11:30:00Z')),
      'replace',
    ],
    [
      'forced re-arm: the earlier run of the same render',
      armingOf(
        undefined,
        [entry('migrate', 'PreSync', R1, T0, { state: 'Failed', finishedAt: T0 })],
        '2025-06-01T11:30:00Z',
      ),
      live(ours('2025-06-01T11:59:00Z')),
      'replace',
    ],
    [
      'a workload of another render under this name (hash prefix collision)',
      fresh,
      live(ours('2025-06-01T11:59:00Z', R2)),
      'replace',
    ],
    ['being deleted', fresh, live(ours(T0), { deletionTimestamp: T0 }), 'wait'],
    ['not labelled for this Release', fresh, { metadata: { annotations: ours(T0) } }, 'foreign'],
    [
      'another hook of this Release',
      fresh,
      live({ ...ours(T0), [ANNOTATION_HOOK_NAME]: 'other' }),
      'foreign',
    ],
  ];
  for (const [name, arming, w, want] of table) {
    it(`${name} → ${want}`, () => assert.equal(existingWorkloadAction(arming, w, LABEL).kind, want));
  }
  it('adopting keeps the createdAt the workload was made with', () => {
    assert.deepEqual(existingWorkloadAction(fresh, live(ours('2025-06-01T11:59:00Z')), LABEL), {
      kind: 'adopt',
      createdAt: '2025-06-01T11:59:00Z',
    });
  });
});
