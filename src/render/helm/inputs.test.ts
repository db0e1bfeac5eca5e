// helmRenderInputs: nothing for another render type; valuesFrom read in order through the caller's
// function; a read error or a missing object names the entry; capabilities passed through or left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helmRenderInputs } from './inputs.ts';

const caps = { kubeVersion: 'v1.36.3', apiVersions: ['v1'] };

describe('helmRenderInputs', () => {
  it('reads nothing for a Kustomize render', async () => {
    const r = await helmRenderInputs(
      { type: 'Kustomize' },
      'web',
      () => Promise.reject(new Error('read')),
      () => Promise.reject(new Error('caps')),
    );
    assert.deepEqual(r, { ok: true, value: {} });
  });
  it('reads valuesFrom in order, and the capabilities', async () => {
    const seen: string[] = [];
    const r = await helmRenderInputs(
      {
        type: 'Helm',
        helm: {
          valuesFrom: [
            { kind: 'ConfigMap', name: 'a' },
            { kind: 'Secret', name: 'b', valuesKey: 'pw', targetPath: 'db.password' },
          ],
        },
      },
      'web',
      async (kind, ns, name): Promise<Record<string, string>> => {
        seen.push(`${kind} ${ns}/${name}`);
        return kind === 'ConfigMap' ? { 'values.yaml': 'x: 1' } : { pw: 's3cret' };
      },
      async () => caps,
    );
    assert.deepEqual(seen, ['ConfigMap web/a', 'Secret web/b']);
    assert.deepEqual(r, {
      ok: true,
      value: { valuesFrom: [{ x: 1 }, { db: { password: 's3cret' } }], capabilities: caps },
    });
  });
  it('a read error and a missing object name their entries; unknown capabilities are left out', async () => {
    const spec = {
      type: 'Helm' as const,
      helm: { valuesFrom: [{ kind: 'Secret' as const, name: 'gone' }] },
    };
    const missing = await helmRenderInputs(
      spec,
      'web',
      async () => undefined,
      async () => undefined,
    );
    assert.deepEqual(missing.ok ? [] : missing.problems, [
      { where: 'spec.render.helm.valuesFrom[0] (Secret web/gone)', message: 'Secret not found' },
    ]);
    const forbidden = await helmRenderInputs(
      spec,
      'web',
      () => Promise.reject(new Error('forbidden')),
      async () => undefined,
    );
    assert.equal(forbidden.ok ? '' : forbidden.problems[0]?.message, 'reading it: forbidden');
    const none = await helmRenderInputs(
      { type: 'Helm' },
      'web',
      async () => undefined,
      async () => undefined,
    );
    assert.deepEqual(none, { ok: true, value: { valuesFrom: [] } });
  });
});
