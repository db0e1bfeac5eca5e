// Schema violations named at the layer that set the value last: a table of layers and helm's output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSchemaFailure, schemaProblems } from './schema-error.ts';

const STDERR = `Error: values don't meet the specifications of the schema(s) in the following chart(s):
web:
- at '/replicas': got string, want integer
- at '/db/port': got boolean, want integer
`;

describe('schemaProblems', () => {
  it('recognises helm schema failures', () => {
    assert.equal(isSchemaFailure(STDERR), true);
    assert.equal(isSchemaFailure('Error: parse error at (web/templates/a.yaml:3)'), false);
  });
  it('names the last layer that set each value', () => {
    const layers = [
      { where: 'spec.render.helm.valuesFiles[0] (prod.yaml)', values: { replicas: 'x', db: { port: true } } },
      { where: 'spec.render.helm.valuesFrom[0] (Secret ns/db)', values: { db: { port: false } } },
      { where: 'spec.render.helm.values', values: { replicas: 'three' } },
    ];
    assert.deepEqual(schemaProblems(STDERR, layers), [
      {
        where: 'spec.render.helm.values replicas',
        message: 'got string, want integer (values.schema.json of chart web)',
      },
      {
        where: 'spec.render.helm.valuesFrom[0] (Secret ns/db) db.port',
        message: 'got boolean, want integer (values.schema.json of chart web)',
      },
    ]);
  });
  it("a value no layer set is the chart's own", () => {
    assert.deepEqual(schemaProblems(STDERR, [])[0]?.where, "the chart's values.yaml replicas");
  });
});
