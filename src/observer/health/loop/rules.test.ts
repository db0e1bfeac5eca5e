// Table test of collectRules: selectors, namespaces and order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GlobalHealthRuleSet, HealthAssessment, HealthRuleSet, Release } from '../../../api/types.ts';
import { collectRules } from './rules.ts';

const rel = (ha?: HealthAssessment): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace: 'ns' },
  spec: { source: { inline: { manifests: '' } }, ...(ha ? { healthAssessment: ha } : {}) },
});
const g = (name: string, labels: Record<string, string> = {}): GlobalHealthRuleSet => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'GlobalHealthRuleSet',
  metadata: { name, labels },
  spec: { rules: [] },
});
const l = (namespace: string, name: string, labels: Record<string, string> = {}): HealthRuleSet => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'HealthRuleSet',
  metadata: { name, namespace, labels },
  spec: { rules: [] },
});

const globals = [g('z-default', { 'convoy.kumodo.io/rules': 'default' }), g('a-other')];
const locals = [
  l('ns', 'web', { team: 'web' }),
  l('ns', 'db', { team: 'db' }),
  l('other', 'web', { team: 'web' }),
];
const names = (ha?: HealthAssessment) =>
  collectRules(rel(ha), globals, locals).map(
    (s) => `${s.kind}:${s.metadata.namespace ?? ''}/${s.metadata.name}`,
  );

describe('collectRules', () => {
  const rows: [string, HealthAssessment | undefined, string[]][] = [
    ['no healthAssessment', undefined, []],
    ['no selectors select nothing', {}, []],
    [
      '{} global selects all globals, sorted',
      { globalRuleSetSelector: {} },
      ['GlobalHealthRuleSet:/a-other', 'GlobalHealthRuleSet:/z-default'],
    ],
    [
      'labels select',
      { globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } } },
      ['GlobalHealthRuleSet:/z-default'],
    ],
    [
      'local: only the Release namespace, globals first',
      {
        globalRuleSetSelector: { matchLabels: { 'convoy.kumodo.io/rules': 'default' } },
        localRuleSetSelector: { matchLabels: { team: 'web' } },
      },
      ['GlobalHealthRuleSet:/z-default', 'HealthRuleSet:ns/web'],
    ],
    ['local {}', { localRuleSetSelector: {} }, ['HealthRuleSet:ns/db', 'HealthRuleSet:ns/web']],
  ];
  for (const [name, ha, want] of rows) it(name, () => assert.deepEqual(names(ha), want));
});
