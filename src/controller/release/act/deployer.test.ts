// appliedBy: the proof that a live object is this Release's, which a label or a copied annotation cannot
// give (docs/design.md#tenancy-and-impersonation). Table test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Obj } from '../../../render/types.ts';
import { appliedBy } from './deployer.ts';

const UID = '6f1c2a9e-0000-4000-8000-000000000001';
const uidField = { 'f:metadata': { 'f:annotations': { 'f:convoy.kumodo.io/release-uid': {} } } };
const labelOnly = { 'f:metadata': { 'f:labels': { 'f:convoy.kumodo.io/release': {} } } };

function live(annotation: string | undefined, managedFields?: unknown[]): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'x',
      namespace: 'team-a',
      labels: { 'convoy.kumodo.io/release': 'team-a.web' },
      ...(annotation === undefined ? {} : { annotations: { 'convoy.kumodo.io/release-uid': annotation } }),
      ...(managedFields === undefined ? {} : { managedFields }),
    },
  };
}

describe('appliedBy', () => {
  const table: [string, Obj | undefined, string, boolean][] = [
    [
      'convoy applied the uid annotation',
      live(UID, [{ manager: 'convoy', operation: 'Apply', fieldsV1: uidField }]),
      UID,
      true,
    ],
    [
      'among other managers',
      live(UID, [
        { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: {} },
        { manager: 'convoy', operation: 'Apply', fieldsV1: uidField },
      ]),
      UID,
      true,
    ],
    ['no live object', undefined, UID, false],
    [
      'no uid annotation: the label alone proves nothing',
      live(undefined, [{ manager: 'convoy', operation: 'Apply', fieldsV1: labelOnly }]),
      UID,
      false,
    ],
    [
      'another Release’s uid',
      live('other', [{ manager: 'convoy', operation: 'Apply', fieldsV1: uidField }]),
      UID,
      false,
    ],
    [
      'the uid copied by kubectl annotate',
      live(UID, [{ manager: 'kubectl-annotate', operation: 'Update', fieldsV1: uidField }]),
      UID,
      false,
    ],
    [
      'the uid set by another applier',
      live(UID, [{ manager: 'argocd', operation: 'Apply', fieldsV1: uidField }]),
      UID,
      false,
    ],
    [
      'convoy owns only the label; someone else the annotation',
      live(UID, [
        { manager: 'convoy', operation: 'Apply', fieldsV1: labelOnly },
        { manager: 'kubectl-edit', operation: 'Update', fieldsV1: uidField },
      ]),
      UID,
      false,
    ],
    ['no managedFields (stripped)', live(UID), UID, false],
    [
      'a Release without uid',
      live('', [{ manager: 'convoy', operation: 'Apply', fieldsV1: uidField }]),
      '',
      false,
    ],
  ];
  for (const [name, obj, uid, want] of table) it(name, () => assert.equal(appliedBy(obj, uid), want));
});
