// Table test of planVerification (docs/design.md#verification): which render a pass verifies and when its
// soak begins.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release, ReleaseInventory, VerificationStatus } from '../../api/index.ts';
import { R1, R2 } from '../../api/testsupport.ts';
import { planVerification, renderAllHealthy } from './plan.ts';

const NOW = new Date('2030-01-01T00:10:00Z');
const STARTED = '2030-01-01T00:05:00Z';

function release(
  over: {
    rollout?: Partial<NonNullable<Release['status']>['rollout']> | null;
    lastSuccessful?: string;
    verification?: boolean;
    pin?: boolean;
  } = {},
): Release {
  const rollout =
    over.rollout === null
      ? undefined
      : {
          state: 'Progressing' as const,
          renderRef: R2,
          revision: 'r2',
          reason: 'NewRender',
          message: 'm',
          startedAt: STARTED,
          ...over.rollout,
        };
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace: 'ns', name: 'app' },
    spec: {
      source: { inline: { manifests: 'x' } },
      ...(over.verification === false ? {} : { verification: { soak: '1m', checks: [] } }),
      ...(over.pin === true ? { pin: { renderRef: R1 } } : {}),
    },
    status: {
      ...(rollout === undefined ? {} : { rollout }),
      lastSuccessful: { renderRef: over.lastSuccessful ?? R2, revision: 'r', time: STARTED },
    },
  } as Release;
}

function inventory(state = 'Healthy', verification?: VerificationStatus, pending = 0): ReleaseInventory {
  const e = (name: string) => ({
    group: 'apps',
    kind: 'Deployment',
    namespace: 'ns',
    name,
    version: 'v1',
    renderRef: R2,
    assessedRenderRef: R2,
    state,
  });
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { namespace: 'ns', name: 'app' },
    entries: [e('a'), e('b')],
    ...(pending > 0
      ? {
          pending: [
            { group: '', kind: 'ConfigMap', namespace: 'ns', name: 'c', version: 'v1', renderRef: R2 },
          ],
        }
      : {}),
    ...(verification === undefined ? {} : { verification }),
  } as ReleaseInventory;
}

const running = (over: Partial<VerificationStatus> = {}): VerificationStatus => ({
  renderRef: R2,
  startedAt: '2030-01-01T00:06:00Z',
  phase: 'Running',
  ...over,
});

test('planVerification, row by row', () => {
  const rows: readonly [string, Release, ReleaseInventory | undefined, string, string?][] = [
    ['no spec.verification', release({ verification: false }), inventory(), 'idle'],
    ['no rollout', release({ rollout: null }), inventory(), 'idle'],
    ['rollout Succeeded', release({ rollout: { state: 'Succeeded' } }), inventory(), 'idle'],
    ['rollout RolledBack', release({ rollout: { state: 'RolledBack' } }), inventory(), 'idle'],
    ['pinned', release({ pin: true }), inventory(), 'idle'],
    ['an object Progressing', release(), inventory('Progressing'), 'waiting'],
    ['the sync of R not finished', release({ lastSuccessful: R1 }), inventory(), 'waiting'],
    ['a wave pending', release(), inventory('Healthy', undefined, 1), 'waiting'],
    ['all Healthy: the soak starts now', release(), inventory(), 'measure', 'started'],
    ['Running for R: measure on', release(), inventory('Healthy', running()), 'measure', 'continued'],
    [
      'Running for R while an object went Progressing: measure on',
      release(),
      inventory('Progressing', running()),
      'measure',
      'continued',
    ],
    ['Passed for R: done', release(), inventory('Healthy', running({ phase: 'Passed' })), 'idle'],
    [
      'Failed for R: done (the controller rolls back)',
      release(),
      inventory('Healthy', running({ phase: 'Failed' })),
      'idle',
    ],
    [
      'Inconclusive for R: measure on (a conclusive one resumes it)',
      release(),
      inventory('Healthy', running({ phase: 'Inconclusive' })),
      'measure',
      'continued',
    ],
    [
      "another render's verification: start afresh",
      release(),
      inventory('Healthy', running({ renderRef: R1, phase: 'Failed' })),
      'measure',
      'started',
    ],
    [
      'an older attempt of R (before the clock): start afresh',
      release(),
      inventory('Healthy', running({ startedAt: '2030-01-01T00:01:00Z', phase: 'Failed' })),
      'measure',
      'started',
    ],
  ];
  for (const [name, rel, inv, kind, how] of rows) {
    const p = planVerification(rel, inv, NOW);
    assert.equal(p.kind, kind, name);
    if (p.kind === 'measure') {
      assert.equal(p.started, how === 'started', name);
      assert.equal(p.status.renderRef, R2, name);
      if (p.started)
        assert.deepEqual([p.status.phase, p.status.startedAt], ['Running', NOW.toISOString()], name);
    }
  }
});

test('renderAllHealthy needs at least one entry of R', () => {
  const empty = { ...inventory(), entries: [] } as ReleaseInventory;
  assert.equal(renderAllHealthy(release(), empty, R2), false);
  assert.equal(renderAllHealthy(release(), inventory(), R2), true);
});
