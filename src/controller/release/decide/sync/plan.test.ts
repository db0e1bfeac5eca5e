// Table tests of the sync plan (docs/design.md#reconcile-order): which steps run for a render, each wave's
// gate input (docs/design.md#wave-gate), the gate's decision on the sync's inventory, and the results the
// steps stop at.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_VERSION } from '../../../../api/constants.ts';
import type { Release, WaveStatus } from '../../../../api/types.ts';
import { renderRef } from '../../../../render/canonical.ts';
import type { Obj } from '../../../../render/types.ts';
import { ApplyFailedError } from '../../errors.ts';
import { helmResource, entry as hookEntryOf } from '../hooks/fixtures.ts';
import {
  gateStop,
  hookStop,
  inventoryMayTrail,
  planSync,
  type SyncStep,
  upToDate,
  waveAhead,
  waveGate,
} from './plan.ts';

const cm = (name: string, wave: number): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app', annotations: { 'convoy.kumodo.io/sync-wave': String(wave) } },
});
const objects = [cm('a', 0), cm('b', 1), cm('c', 2)];
const render = { hooks: [], objects };
const R = renderRef(render);
const NOW = Date.UTC(2026, 0, 1);
const base: Release = {
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: { name: 'web', namespace: 'app', uid: 'uid-web' },
  spec: { source: { inline: { manifests: 'x' } } },
};
const stamp = { renderRef: R, revision: 'r', time: '2026-01-01T00:00:00Z' };
const withSpec = (spec: Partial<Release['spec']>, status?: Release['status']): Release => ({
  ...base,
  spec: { ...base.spec, ...spec },
  ...(status === undefined ? {} : { status }),
});
const applied: Release['status'] = { lastSuccessful: stamp, lastAttempted: { ...stamp, applied: true } };
const inventoryOfR = {
  entries: objects.map((o, i) => ({
    group: '',
    kind: 'ConfigMap',
    namespace: 'app',
    name: o.metadata.name ?? '',
    version: 'v1',
    wave: i,
    renderRef: R,
  })),
} as never;

/** planSync of a render (hooks, objects) for the base Release, as a first sync. */
function planOf(render: { hooks: Obj[]; objects: Obj[] }, dryRunPassed = false) {
  return planSync({
    release: base,
    rendered: { renderRef: renderRef(render), render },
    forced: false,
    inventory: undefined,
    now: NOW,
    dryRunPassed,
  });
}

/** A step in a short form: "wave 1 (after 0): waitPrevious 5m". */
function show(s: SyncStep): string {
  if (s.kind !== 'wave') return s.kind;
  const gate = s.gate.kind === 'none' ? 'none' : `waitPrevious ${s.gate.previousWave} ${s.gate.timeout}`;
  return `wave ${s.wave} (after ${s.previousWave ?? '-'}): ${gate}`;
}
/** The steps of a full sync of objects' three waves, in the short form of show. */
function steps(opts: { resumePostSync?: boolean; wave2Gate?: string } = {}): string[] {
  return [
    ...(opts.resumePostSync === true ? ['resumePostSync'] : []),
    'dryRun',
    'persist',
    'settleInterrupted',
    'wave 0 (after -): none',
    'wave 1 (after 0): none',
    `wave 2 (after 1): ${opts.wave2Gate ?? 'none'}`,
    'prune',
    'postSync',
  ];
}
const waitWave = { ...stamp, applied: false, reason: 'WaitingForHook' } as const;

describe('planSync', () => {
  const rows: [string, Release, boolean, readonly string[] | 'upToDate'][] = [
    ['a new render: every step, no gates', base, false, steps()],
    [
      'WaitPrevious on waves 0 and 2: the first wave has no gate, wave 2 waits for 1 with its timeout',
      withSpec({
        waves: [
          { wave: 0, healthStrategy: 'WaitPrevious' },
          { wave: 2, healthStrategy: 'WaitPrevious', timeout: '5m' },
        ],
      }),
      false,
      steps({ wave2Gate: 'waitPrevious 1 5m' }),
    ],
    ['applied, recorded and pruned already: nothing to do', withSpec({}, applied), false, 'upToDate'],
    ['the same, forced: the full sync', withSpec({}, applied), true, steps()],
    [
      'held for PostSync hooks of R: PostSync is tried first',
      withSpec({}, { lastAttempted: waitWave }),
      false,
      steps({ resumePostSync: true }),
    ],
    ['held for hooks of R, forced: no shortcut', withSpec({}, { lastAttempted: waitWave }), true, steps()],
    [
      'held for hooks of another render: no shortcut',
      withSpec({}, { lastAttempted: { ...waitWave, renderRef: 'other' } }),
      false,
      steps(),
    ],
  ];
  for (const [name, release, forced, want] of rows) {
    test(name, () => {
      const plan = planSync({
        release,
        rendered: { renderRef: R, render },
        forced,
        inventory: inventoryOfR,
        now: NOW,
      });
      assert.deepEqual(plan.kind === 'upToDate' ? 'upToDate' : plan.steps.map(show), want);
    });
  }

  test('a render with a PreSync hook: the preSync step after persist; with only other hooks: none', () => {
    const hook = (phase: string): Obj => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: `h-${phase}`, namespace: 'app', annotations: { 'convoy.kumodo.io/hook': phase } },
    });
    const steps = (hooks: Obj[]) => {
      const r = { hooks, objects };
      const plan = planOf(r);
      return plan.kind === 'upToDate' ? [] : plan.steps.map(show).slice(0, 4);
    };
    assert.deepEqual(steps([hook('PreSync')]), ['dryRun', 'persist', 'preSync', 'settleInterrupted']);
    assert.deepEqual(steps([hook('PostSync')]), [
      'dryRun',
      'persist',
      'settleInterrupted',
      'wave 0 (after -): none',
    ]);
  });

  test('a render this process dry-ran in full already: no dry run, the rest as before', () => {
    const steps = (dryRunPassed: boolean) => {
      const plan = planSync({
        release: base,
        rendered: { renderRef: R, render },
        forced: true,
        inventory: inventoryOfR,
        now: NOW,
        dryRunPassed,
      });
      return plan.kind === 'upToDate' ? [] : plan.steps.map(show);
    };
    assert.deepEqual(steps(true), steps(false).slice(1));
    assert.equal(steps(false)[0], 'dryRun');
  });

  test('upToDate needs the inventory to hold R: a missing entry is work', () => {
    assert.equal(upToDate(withSpec({}, applied), { renderRef: R, render }, inventoryOfR, NOW), true);
    assert.equal(
      upToDate(withSpec({}, applied), { renderRef: R, render }, { entries: [] } as never, NOW),
      false,
    );
  });
});

describe('waveAhead: the next wave is noted in the write that records this one only when no gate holds it', () => {
  const wave = (n: number, gate: 'none' | 'wait'): SyncStep => ({
    kind: 'wave',
    wave: n,
    objects: [cm(String(n), n)],
    previousWave: n - 1,
    gate:
      gate === 'none' ? { kind: 'none' } : { kind: 'waitPrevious', previousWave: n - 1, timeout: undefined },
  });
  const rows: [string, SyncStep, SyncStep | undefined, number | undefined][] = [
    ['the next wave has no gate: noted ahead', wave(0, 'none'), wave(1, 'none'), 1],
    ['the next wave waits for this one: not noted', wave(0, 'none'), wave(1, 'wait'), undefined],
    ['the last wave (prune next): nothing', wave(1, 'none'), { kind: 'prune' }, undefined],
    ['not a wave step: nothing', { kind: 'persist' }, wave(0, 'none'), undefined],
    ['no next step: nothing', wave(0, 'none'), undefined, undefined],
  ];
  for (const [name, step, next, want] of rows)
    test(name, () => assert.equal(waveAhead(step, next)?.wave, want));
});

describe('waveGate', () => {
  const state = (waves: readonly WaveStatus[], observerLive: boolean) => ({
    release: base,
    render: { renderRef: R, revision: 'r', pinned: false },
    wave: 1,
    entries: [],
    waves,
    observerLive,
    now: NOW,
  });
  const wait = { kind: 'waitPrevious', previousWave: 0, timeout: undefined } as const;
  const rows: [string, Parameters<typeof waveGate>[0], readonly WaveStatus[], string][] = [
    ['no gate: proceed, even with the observer down', { kind: 'none' }, [], 'proceed'],
    ['WaitPrevious, wave 0 not recorded: hold', wait, [], 'hold'],
    [
      'WaitPrevious, the wave already started for R (a later sync of R): proceed',
      wait,
      [{ renderRef: R, wave: 1, startedAt: '2026-01-01T00:00:00Z' }],
      'proceed',
    ],
    [
      'WaitPrevious, the wave started for another render only: hold',
      wait,
      [{ renderRef: 'other', wave: 1, startedAt: '2026-01-01T00:00:00Z' }],
      'hold',
    ],
  ];
  for (const [name, gate, waves, want] of rows) {
    test(name, () => assert.equal(waveGate(gate, state(waves, false)).kind, want));
  }
});

describe('inventoryMayTrail: a sync the cached inventory calls for asks the API first', () => {
  const other = { ...stamp, renderRef: 'sha256:other' };
  const rows: [string, Release['status'], boolean, boolean][] = [
    ['no status: a first sync', undefined, false, false],
    ['R applied and succeeded', applied, false, true],
    ['the same, but forced: it syncs whatever the inventory says', applied, true, false],
    [
      'R attempted but not applied',
      { lastSuccessful: stamp, lastAttempted: { ...stamp, applied: false } },
      false,
      false,
    ],
    [
      'another render attempted since',
      { lastSuccessful: stamp, lastAttempted: { ...other, applied: true } },
      false,
      false,
    ],
    [
      'R attempted, another succeeded last',
      { lastSuccessful: other, lastAttempted: { ...stamp, applied: true } },
      false,
      false,
    ],
  ];
  for (const [name, status, forced, want] of rows)
    test(name, () => assert.equal(inventoryMayTrail(withSpec({}, status), R, forced), want));
});

describe('the results a step stops at', () => {
  const soFar = { attemptBase: stamp, waves: [], notes: ['n'] };
  test('a gate hold: held with the gate reason, not applied', () => {
    const got = gateStop({ kind: 'hold', reason: 'WaitingForWaveHealth', message: 'm' }, soFar);
    assert.equal(got?.kind, 'held');
    assert.deepEqual(got?.kind === 'held' ? got.attempt : undefined, {
      ...stamp,
      applied: false,
      reason: 'WaitingForWaveHealth',
    });
  });
  test('a gate proceed goes on', () => assert.equal(gateStop({ kind: 'proceed' }, soFar), undefined));
  const rollout = {
    state: 'RolledBack',
    renderRef: R,
    revision: 'r',
    startedAt: '',
    reason: 'WaveTimeout',
    message: 'late',
  } as never;
  test('a timeout transition: rollback (applyLastHealthy) or held with the failed rollout (stop)', () => {
    assert.equal(
      gateStop({ kind: 'transition', rollout, action: 'applyLastHealthy' }, soFar)?.kind,
      'rollback',
    );
    const stop = gateStop({ kind: 'transition', rollout, action: 'stop' }, soFar);
    assert.equal(stop?.kind === 'held' ? `${stop.reason}: ${stop.message}` : stop?.kind, 'WaveTimeout: late');
  });
  test('hook steps: proceed goes on (PreSync) or ends synced (PostSync); hold waits; fail fails', () => {
    const proceed = { kind: 'proceed', notes: [] } as const;
    assert.equal(hookStop(proceed, soFar, false), undefined);
    assert.equal(hookStop(proceed, soFar, true)?.kind, 'synced');
    const held = hookStop({ kind: 'hold', message: 'm', notes: [] }, soFar, false);
    assert.equal(held?.kind === 'held' ? held.reason : held?.kind, 'WaitingForHook');
    const error = new ApplyFailedError('boom') as never;
    const failed = hookStop({ kind: 'fail', error, notes: [] }, soFar, true);
    assert.equal(failed?.kind === 'failed' ? failed.attempt?.message : failed?.kind, 'boom');
  });
});

describe("planSync: a chart's pre-install resources go in before its PreSync hooks", () => {
  const helmHook = (kind: string, name: string, hook: string, extra: Record<string, string> = {}): Obj => ({
    apiVersion: kind === 'Job' ? 'batch/v1' : 'v1',
    kind,
    metadata: { name, namespace: 'app', annotations: { 'helm.sh/hook': hook, ...extra } },
  });
  const job = helmHook('Job', 'secret-init', 'pre-install', { 'convoy.kumodo.io/hook': 'PreSync' });
  const sa = helmHook('ServiceAccount', 'secret-init', 'pre-install,pre-upgrade');
  const post = helmHook('ConfigMap', 'after', 'post-install');
  const kinds = (s: SyncStep) =>
    s.kind === 'wave' ? `${show(s)} [${s.objects.map((o) => o.kind).join(',')}]` : s.kind;
  test('with PreSync hooks: settle, the resources, PreSync, then the waves without them', () => {
    const r = { hooks: [job], objects: [sa, cm('a', 0), post] };
    const plan = planOf(r);
    assert.equal(plan.kind, 'sync');
    assert.deepEqual(plan.kind === 'sync' ? plan.steps.map(kinds) : [], [
      'dryRun',
      'persist',
      'settleInterrupted',
      'wave 0 (after -): none [ServiceAccount]',
      'preSync',
      'wave 0 (after -): none [ConfigMap,ConfigMap]',
      'prune',
      'postSync',
    ]);
    const first = plan.kind === 'sync' ? plan.steps[3] : undefined;
    assert.equal(first?.kind === 'wave' ? first.hookResources : undefined, true);
  });
  test('by weight, as Helm orders a phase: a resource goes in after the lighter hooks, before its own', () => {
    const weighted = (kind: string, name: string, weight: string, wave?: string) =>
      helmHook(kind, name, 'pre-install', {
        'helm.sh/hook-weight': weight,
        ...(wave === undefined ? {} : { 'convoy.kumodo.io/sync-wave': wave }),
      });
    const early = helmHook('Job', 'early', 'pre-install', {
      'convoy.kumodo.io/hook': 'PreSync',
      'convoy.kumodo.io/hook-weight': '-5',
    });
    const rows: [string, Obj[], Obj[], string[]][] = [
      [
        'the resource first when no hook is lighter',
        [job],
        [weighted('ServiceAccount', 's', '0')],
        ['[ServiceAccount]', 'preSync'],
      ],
      [
        'a lighter hook runs first',
        [early, job],
        [weighted('ServiceAccount', 's', '0')],
        ['preSync <0', '[ServiceAccount]', 'preSync'],
      ],
      [
        'two weights of resources around two of hooks',
        [early, job],
        [
          weighted('ConfigMap', 'late', '3'),
          weighted('Role', 'r', '-10'),
          weighted('ServiceAccount', 's', '0'),
        ],
        ['[Role]', 'preSync <0', '[ServiceAccount]', 'preSync <3', '[ConfigMap]', 'preSync'],
      ],
      [
        "an Ingress of a hook's weight goes in after it, as Helm orders kinds",
        [job],
        [weighted('Ingress', 'i', '0')],
        ['preSync <1', '[Ingress]', 'preSync'],
      ],
      [
        'resources of one weight in two sync waves: two steps, one turn',
        [early, job],
        [weighted('ServiceAccount', 's', '0', '1'), weighted('Role', 'r', '0')],
        ['preSync <0', '[Role]', '[ServiceAccount]', 'preSync'],
      ],
    ];
    const turns = (s: SyncStep) =>
      s.kind === 'wave'
        ? `[${s.objects.map((o) => o.kind).join(',')}]`
        : s.kind === 'preSync' && s.belowWeight !== undefined
          ? `preSync <${s.belowWeight}`
          : s.kind;
    for (const [name, hooks, resources, want] of rows) {
      const plan = planOf({ hooks, objects: [...resources, cm('a', 0)] });
      const steps = plan.kind === 'sync' ? plan.steps.map(turns) : [];
      const from = steps.indexOf('settleInterrupted') + 1;
      assert.deepEqual(steps.slice(from, from + want.length), want, name);
    }
  });
  test('without PreSync hooks the resources stay in their waves, the plan as before', () => {
    const r = { hooks: [], objects: [sa, cm('a', 0)] };
    const plan = planOf(r);
    assert.deepEqual(plan.kind === 'sync' ? plan.steps.map(kinds) : [], [
      'dryRun',
      'persist',
      'settleInterrupted',
      'wave 0 (after -): none [ServiceAccount,ConfigMap]',
      'prune',
      'postSync',
    ]);
  });
});

describe('planSync and upToDate: a hook resource its delete policy removed is not applied again for R', () => {
  const job: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'init', namespace: 'app', annotations: { 'convoy.kumodo.io/hook': 'PreSync' } },
  };
  const resource = (name: string, policy?: string) =>
    helmResource('ServiceAccount', name, 'pre-install,pre-upgrade', policy);
  const spent = resource('init', 'before-hook-creation,hook-succeeded');
  const kept = resource('init-kept');
  const r = { hooks: [job], objects: [spent, kept, cm('a', 0)] };
  const ref = renderRef(r);
  const T = '2026-01-01T00:00:00Z';
  const hookEntry = (renderRefOf: string, state: 'Running' | 'Succeeded') => ({
    ...hookEntryOf(
      'init',
      'PreSync',
      renderRefOf,
      T,
      state === 'Running' ? { state } : { state, finishedAt: T },
    ),
  });
  const entryOf = (o: Obj, wave: number) => ({
    group: '',
    kind: o.kind,
    namespace: 'app',
    name: o.metadata.name,
    version: 'v1',
    wave,
    renderRef: ref,
  });
  const inventory = (state: 'Running' | 'Succeeded', withSpent: boolean, hookRef = ref) =>
    ({
      entries: [...(withSpent ? [entryOf(spent, 0)] : []), entryOf(kept, 0), entryOf(cm('a', 0), 0)],
      hooks: [hookEntry(hookRef, state)],
    }) as never;
  const stepsOf = (inv: never, release: Release = base, forced = false) => {
    const plan = planSync({
      release,
      rendered: { renderRef: ref, render: r },
      forced,
      inventory: inv,
      now: NOW,
    });
    return plan.kind === 'upToDate'
      ? 'upToDate'
      : plan.steps.map((s) =>
          s.kind === 'wave' ? `${show(s)} [${s.objects.map((o) => o.metadata.name)}]` : s.kind,
        );
  };
  /** A full sync whose hook-resources step applies `names`, then PreSync, then wave 0. */
  const withResources = (names: string) => [
    'dryRun',
    'persist',
    'settleInterrupted',
    `wave 0 (after -): none [${names}]`,
    'preSync',
    'wave 0 (after -): none [a]',
    'prune',
    'postSync',
  ];
  const synced: Release['status'] = {
    lastSuccessful: { ...stamp, renderRef: ref },
    lastAttempted: { ...stamp, renderRef: ref, applied: true },
  };
  test('PreSync of R still running: both resources go in first, as before', () => {
    assert.deepEqual(stepsOf(inventory('Running', true)), withResources('init,init-kept'));
  });
  test('PreSync of R succeeded: the hook-succeeded one is not applied again, the other is', () => {
    assert.deepEqual(stepsOf(inventory('Succeeded', false)), withResources('init-kept'));
  });
  test('a new render (the hooks ran for another): both go in again before its PreSync hooks', () => {
    assert.deepEqual(stepsOf(inventory('Succeeded', false, R))[3], 'wave 0 (after -): none [init,init-kept]');
  });
  test('a forced sync runs PreSync again: both go in again', () => {
    const forced = { ...base, status: { ...synced, lastHandledForceSyncAt: '2026-01-01T01:00:00Z' } };
    assert.deepEqual(
      stepsOf(inventory('Succeeded', false), forced)[3],
      'wave 0 (after -): none [init,init-kept]',
    );
  });
  test('upToDate: R synced without the removed resource; still recorded, it is work for the hook step', () => {
    const release = withSpec({}, synced);
    assert.equal(stepsOf(inventory('Succeeded', false), release), 'upToDate');
    assert.notEqual(stepsOf(inventory('Succeeded', true), release), 'upToDate');
  });
});

describe('planSync: the custom resources of a CRD in the same render', () => {
  const crd: Obj = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: { group: 'example.com', names: { kind: 'Gadget', plural: 'gadgets' } },
  } as Obj;
  const gadget: Obj = {
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: 'app' },
  };
  const stepsOf = (objects: Obj[], dryRunPassed = false) => {
    const r = { hooks: [], objects };
    const plan = planOf(r, dryRunPassed);
    return plan.kind === 'sync' ? plan.steps.map((x) => x.kind).slice(0, 3) : [];
  };
  test('a CRD and its custom resource: dry-run them with the CRD applied, before persist', () =>
    assert.deepEqual(stepsOf([crd, gadget]), ['dryRun', 'dryRunWithCrds', 'persist']));
  test('a CRD alone, or custom resources of a CRD installed apart: the plain dry run', () => {
    assert.deepEqual(stepsOf([crd, cm('a', 0)]), ['dryRun', 'persist', 'settleInterrupted']);
    assert.deepEqual(stepsOf([gadget]), ['dryRun', 'persist', 'settleInterrupted']);
  });
  test('dry-run in full before: neither step', () =>
    assert.deepEqual(stepsOf([crd, gadget], true), ['persist', 'settleInterrupted', 'wave']));
});
