// Which Releases a changed valuesFrom ConfigMap or Secret wakes: Helm Releases naming it, by kind.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Release } from '../../../api/types.ts';
import { releasesNaming } from './values-watch.ts';

const rel = (name: string, render: Release['spec']['render']): Release =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name, namespace: 'web' },
    spec: { source: { inline: { manifests: '' } }, render },
  }) as Release;

describe('releasesNaming', () => {
  const releases = [
    rel('a', { type: 'Helm', helm: { valuesFrom: [{ kind: 'Secret', name: 'vals' }] } }),
    rel('b', { type: 'Helm', helm: { valuesFrom: [{ kind: 'ConfigMap', name: 'vals' }] } }),
    rel('c', { type: 'Helm' }),
    rel('d', { type: 'Kustomize', helm: { valuesFrom: [{ kind: 'Secret', name: 'vals' }] } }),
  ];
  const table: [string, 'ConfigMap' | 'Secret', string, string[]][] = [
    ['a Secret wakes the Release naming it as a Secret', 'Secret', 'vals', ['web/a']],
    ['a ConfigMap of the same name wakes the other', 'ConfigMap', 'vals', ['web/b']],
    ['another name wakes none', 'Secret', 'other', []],
  ];
  for (const [name, kind, obj, want] of table) {
    it(name, () => assert.deepEqual(releasesNaming(releases, kind, obj), want));
  }
});
