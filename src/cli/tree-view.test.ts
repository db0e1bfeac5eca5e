import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release, ReleaseInventory } from '../api/types.ts';
import { healthResult } from '../server/views.ts';
import { treeLines } from './tree-view.ts';

const R = `sha256:${'2'.repeat(64)}`;
const T = '2030-01-01T00:00:00Z';

test('tree: hooks by phase around the waves, each object with state, deciding rule and message', () => {
  const release: Release = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'shop', generation: 1 },
    spec: { source: { inline: { manifests: 'x' } }, healthAssessment: {}, failurePolicy: { deadline: '5m' } },
    status: {
      observedGeneration: 1,
      currentRender: { renderRef: R, revision: 'r' },
      rollout: { state: 'Progressing', renderRef: R, startedAt: T },
      waves: [
        { renderRef: R, wave: 0, startedAt: T, completedAt: T },
        { renderRef: R, wave: 1, startedAt: T },
      ],
    },
  };
  const inv = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name: 'web', namespace: 'shop' },
    entries: [
      {
        group: '',
        kind: 'ConfigMap',
        namespace: 'shop',
        name: 'cfg',
        wave: 0,
        renderRef: R,
        state: 'Healthy',
        assessedRenderRef: R,
      },
      {
        group: 'apps',
        kind: 'Deployment',
        namespace: 'shop',
        name: 'web',
        wave: 1,
        renderRef: R,
        state: 'Progressing',
        assessedRenderRef: R,
        message: 'available 1 of 3',
        rule: 'default/deployment-available',
      },
    ],
    hooks: [
      {
        name: 'migrate',
        phase: 'PreSync',
        kind: 'Job',
        workloadName: 'migrate-2222',
        renderRef: R,
        state: 'Succeeded',
      },
      { name: 'smoke', phase: 'PostSync', kind: 'Job', renderRef: R },
    ],
  } as ReleaseInventory;
  assert.deepEqual(treeLines(healthResult(release, inv), { colour: false }), [
    'Release shop/web · render sha256:222222222222',
    'Progressing sha256:222222222222 · waves 1/2 done (at wave 1) · objects 1/2 Healthy · hooks 1 Succeeded, 1 Running',
    '',
    'PreSync hooks',
    '└─ Job/migrate-2222   (migrate)   Succeeded',
    '',
    'Wave 0 (done)',
    '└─ ConfigMap shop/cfg   Healthy   -',
    '',
    'Wave 1 (in progress)',
    '└─ apps/Deployment shop/web   Progressing   default/deployment-available   available 1 of 3',
    '',
    'PostSync hooks',
    '└─ Job/-   (smoke)   Running',
  ]);
});
