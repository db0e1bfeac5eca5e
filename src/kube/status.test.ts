// Table test of the status writer's skip decision and of the SSA field sets it rests on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusSchemaOf } from '../api/crds.ts';
import type { KubeObject } from '../api/types.ts';
import { fieldSetOf, parseFieldsV1 } from './fieldset.ts';
import { statusUpToDate } from './status.ts';

const schema = statusSchemaOf('Release');

const ready = {
  type: 'Ready',
  status: 'True',
  reason: 'Synced',
  message: 'ok',
  lastTransitionTime: '2024-01-01T00:00:00Z',
};
const healthy = {
  type: 'Healthy',
  status: 'True',
  reason: 'Healthy',
  message: '',
  lastTransitionTime: '2024-01-01T00:00:00Z',
};

/** FieldsV1 as the apiserver writes it for an apply of `{conditions: [ready], observedGeneration}`. */
const controllerFields = {
  'f:status': {
    'f:conditions': {
      'k:{"type":"Ready"}': {
        '.': {},
        'f:lastTransitionTime': {},
        'f:message': {},
        'f:reason': {},
        'f:status': {},
        'f:type': {},
      },
    },
    'f:observedGeneration': {},
  },
};

function release(
  status: Record<string, unknown>,
  fields: Record<string, unknown> = controllerFields,
): KubeObject {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: {
      name: 'web',
      namespace: 'ns',
      managedFields: [
        { manager: 'convoy-controller', operation: 'Apply', subresource: 'status', fieldsV1: fields },
        { manager: 'convoy-health', operation: 'Apply', subresource: 'status', fieldsV1: {} },
      ],
    },
    status,
  };
}

test('fieldSetOf matches the FieldsV1 the apiserver records (list-map items by key)', () => {
  const desired = { conditions: [ready], observedGeneration: 2 };
  assert.deepEqual(
    [...fieldSetOf(desired, schema)].sort(),
    [...parseFieldsV1(controllerFields['f:status'])].sort(),
  );
});

test('fieldSetOf: atomic lists and empty objects are leaves; multi-key items sort their keys', () => {
  const set = fieldSetOf(
    {
      history: [{ renderRef: 'a', revision: 'r', appliedAt: 't' }],
      waves: [{ wave: 1, renderRef: 'x', startedAt: 't' }],
      healthSummary: {},
    },
    schema,
  );
  assert.deepEqual([...set].sort(), [
    '["f:healthSummary"]',
    '["f:history"]',
    '["f:waves","k:{\\"renderRef\\":\\"x\\",\\"wave\\":1}","f:renderRef"]',
    '["f:waves","k:{\\"renderRef\\":\\"x\\",\\"wave\\":1}","f:startedAt"]',
    '["f:waves","k:{\\"renderRef\\":\\"x\\",\\"wave\\":1}","f:wave"]',
  ]);
});

test('statusUpToDate: table', () => {
  const cached = release({ observedGeneration: 2, conditions: [healthy, ready] });
  const rows: ReadonlyArray<
    readonly [string, KubeObject | undefined, Record<string, unknown>, string, boolean]
  > = [
    [
      'same values, same owned fields',
      cached,
      { observedGeneration: 2, conditions: [ready] },
      'convoy-controller',
      true,
    ],
    [
      'no cached object',
      undefined,
      { observedGeneration: 2, conditions: [ready] },
      'convoy-controller',
      false,
    ],
    ['a value changed', cached, { observedGeneration: 3, conditions: [ready] }, 'convoy-controller', false],
    [
      'condition message changed',
      cached,
      { observedGeneration: 2, conditions: [{ ...ready, message: 'x' }] },
      'convoy-controller',
      false,
    ],
    [
      'a field added',
      cached,
      { observedGeneration: 2, conditions: [ready], lastHandledForceSyncAt: 't' },
      'convoy-controller',
      false,
    ],
    [
      'a field dropped (the apply would remove it)',
      cached,
      { conditions: [ready] },
      'convoy-controller',
      false,
    ],
    [
      'values present but owned by another manager',
      cached,
      { conditions: [healthy] },
      'convoy-health',
      false,
    ],
    ['manager never wrote', cached, { observedGeneration: 2, conditions: [ready] }, 'convoy-drift', false],
  ];
  for (const [what, obj, desired, manager, want] of rows) {
    assert.equal(statusUpToDate(obj, desired, manager, schema), want, what);
  }
});
