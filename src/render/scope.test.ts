// Table tests: which kinds are namespaced without discovery, and the namespace an object ends up in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespacedOf, resolveNamespace } from './scope.ts';
import type { IsNamespaced } from './types.ts';

describe('namespacedOf', () => {
  const discovery: IsNamespaced = (apiVersion, kind) =>
    apiVersion === 'example.com/v1' && kind === 'Cluster'
      ? false
      : apiVersion === 'v1' && kind === 'Namespace'
        ? true
        : undefined;
  const table: [string, string, IsNamespaced | undefined, boolean][] = [
    ['v1', 'ConfigMap', undefined, true],
    ['v1', 'Namespace', undefined, false],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, false],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, false],
    ['rbac.authorization.k8s.io/v1', 'Role', undefined, true],
    ['convoy.kumodo.io/v1alpha1', 'GlobalHealthRuleSet', undefined, false],
    ['convoy.kumodo.io/v1alpha1', 'HealthRuleSet', undefined, true],
    ['example.com/v1', 'Widget', undefined, true],
    // the group matters: a Namespace kind in another group is not the core Namespace
    ['example.com/v1', 'Namespace', undefined, true],
    ['example.com/v1', 'Cluster', discovery, false],
    ['example.com/v1', 'Widget', discovery, true],
    // discovery wins over the list
    ['v1', 'Namespace', discovery, true],
  ];
  for (const [apiVersion, kind, fn, want] of table) {
    it(`${apiVersion} ${kind}${fn ? ' (discovery)' : ''} → ${want}`, () =>
      assert.equal(namespacedOf(fn, apiVersion, kind), want));
  }
});

describe('resolveNamespace', () => {
  const table: [boolean, string | undefined, string | undefined, string | undefined][] = [
    [true, 'own', 'target', 'own'],
    [true, undefined, 'target', 'target'],
    [true, '', 'target', 'target'],
    [true, undefined, undefined, undefined],
    [false, 'own', 'target', undefined],
    [false, undefined, 'target', undefined],
  ];
  for (const [namespaced, own, target, want] of table) {
    it(`namespaced=${namespaced} own=${own} target=${target} → ${want}`, () =>
      assert.equal(resolveNamespace(namespaced, own, target), want));
  }
});
