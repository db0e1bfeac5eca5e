// Fixtures of the health evaluator's tests: a rule set, a Deployment rule and a Deployment.
import type { HealthRule, HealthRuleSetLike, KubeObject } from './types.ts';

export const set = (name: string, rules: HealthRule[], namespace?: string): HealthRuleSetLike => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { rules },
});
export const rule = (name: string, healthy: string, extra: Partial<HealthRule> = {}): HealthRule => ({
  name,
  match: { group: 'apps', kinds: ['Deployment'] },
  healthy,
  ...extra,
});
export const deploy = (
  spec: object = {},
  status: object = {},
  labels?: Record<string, string>,
): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation: 2, ...(labels ? { labels } : {}) },
  spec: { replicas: 3, ...spec },
  status,
});
