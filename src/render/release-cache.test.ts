// The render cache on the Plain path (docs/design.md#render-cache): CachedPlainRenderer parses a source
// once per content and substitution, and assembleOutcome gives back the very render it assembled for the
// same cached result when the target namespace and the kinds' scope are the same, a new one otherwise.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the input under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache } from './cache.ts';
import { CachedPlainRenderer } from './plain.ts';
import { assembleOutcome, type RenderOutcome } from './release.ts';
import type { RenderResult } from './renderer.ts';
import type { IsNamespaced, SourceFile } from './types.ts';

const file = (path: string, text: string): SourceFile => ({ path, data: new TextEncoder().encode(text) });
const cm = (name: string, value = '${V:=a}') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: "${value}"\n`;

describe('CachedPlainRenderer', () => {
  const rows: readonly {
    readonly name: string;
    readonly second: { files: SourceFile[]; substitute?: Record<string, string> };
    readonly misses: number;
  }[] = [
    { name: 'the same files: parsed once', second: { files: [file('a.yaml', cm('a'))] }, misses: 1 },
    {
      name: 'another file beside it: parsed again',
      second: { files: [file('b.yaml', cm('b')), file('a.yaml', cm('a'))] },
      misses: 2,
    },
    { name: 'a changed byte: parsed again', second: { files: [file('a.yaml', cm('a', 'b'))] }, misses: 2 },
    {
      name: 'another substitution: parsed again',
      second: { files: [file('a.yaml', cm('a'))], substitute: { V: 'b' } },
      misses: 2,
    },
    {
      name: 'a broken file is not kept: parsed again',
      second: { files: [file('a.yaml', 'a: [')] },
      misses: 3,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const r = new CachedPlainRenderer(new RenderCache());
      const first = [file('a.yaml', cm('a'))];
      // The broken row renders its broken file twice; the others the first file, then the second.
      const broken = row.name.startsWith('a broken');
      await r.render(broken ? row.second.files : first, {});
      const out = await r.render(
        row.second.files,
        row.second.substitute === undefined ? {} : { substitute: row.second.substitute },
      );
      if (broken) await r.render(row.second.files, {});
      assert.equal(r.cache.misses, row.misses);
      if (!broken) assert.equal(out.ok, true);
    });
  }
  it('a hit is the same result as the render (and renders what Plain renders)', async () => {
    const r = new CachedPlainRenderer();
    const a = await r.render([file('a.yaml', cm('a'))], { substitute: { V: 'x' } });
    const b = await r.render([file('a.yaml', cm('a'))], { substitute: { V: 'x' } });
    assert.equal(a, b);
    assert.ok(a.ok);
    assert.deepEqual(a.value[0]?.object.data, { v: 'x' });
  });
});

describe('assembleOutcome on one renderer result', () => {
  const manifests: RenderResult = {
    ok: true,
    value: [
      {
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
        origin: { file: 'f', document: 1 },
      },
      {
        object: { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } },
        origin: { file: 'f', document: 2 },
      },
    ],
  };
  const clusterThing: IsNamespaced = (_v, kind) => (kind === 'Thing' ? false : undefined);
  const namespacedThing: IsNamespaced = (_v, kind) => (kind === 'Thing' ? true : undefined);
  const render = (o: RenderOutcome) => (o.ok ? o.render : assert.fail(o.error.message));
  const base = assembleOutcome({}, 'r1', manifests, { releaseNamespace: 'web' });
  const rows: readonly [string, RenderOutcome, boolean][] = [
    [
      'the same namespace: the same render',
      assembleOutcome({}, 'r1', manifests, { releaseNamespace: 'web' }),
      true,
    ],
    [
      'another revision: the same render (a render does not hold its revision)',
      assembleOutcome({}, 'r2', manifests, { releaseNamespace: 'web' }),
      true,
    ],
    [
      'discovery agreeing with the built-in answers: the same render',
      assembleOutcome({}, 'r1', manifests, { releaseNamespace: 'web', isNamespaced: namespacedThing }),
      true,
    ],
    [
      'discovery saying a kind is cluster-scoped: another render',
      assembleOutcome({}, 'r1', manifests, { releaseNamespace: 'web', isNamespaced: clusterThing }),
      false,
    ],
    [
      'another namespace: another render',
      assembleOutcome({}, 'r1', manifests, { releaseNamespace: 'db' }),
      false,
    ],
    [
      'spec.render.targetNamespace: another render',
      assembleOutcome({ render: { targetNamespace: 'db' } }, 'r1', manifests, { releaseNamespace: 'web' }),
      false,
    ],
  ];
  for (const [what, out, same] of rows) {
    it(what, () => {
      assert.equal(render(out) === render(base), same);
    });
  }
  it('keeps the revision asked for', () => {
    const out = assembleOutcome({}, 'r2', manifests, { releaseNamespace: 'web' });
    assert.equal(out.ok && out.revision, 'r2');
  });
  it('a kept render equals a fresh assembly of a copy of the manifests', () => {
    const kept = assembleOutcome({}, 'r1', manifests, {
      releaseNamespace: 'web',
      isNamespaced: clusterThing,
    });
    const fresh = assembleOutcome(
      {},
      'r1',
      { ...manifests },
      { releaseNamespace: 'web', isNamespaced: clusterThing },
    );
    assert.ok(kept.ok && fresh.ok);
    assert.notEqual(kept.render, fresh.render);
    assert.deepEqual(kept.render, fresh.render);
    assert.equal(kept.renderRef, fresh.renderRef);
  });
});
