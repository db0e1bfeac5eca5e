// The UI's two paths behind the aggregated API, and the paths that are not the UI's. Table test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uiPath } from './ui-path.ts';

const P = '/apis/api.convoy.kumodo.io/v1alpha1';

test('uiPath', () => {
  const rows: [string, ReturnType<typeof uiPath>][] = [
    [`${P}/ui/web/proxy`, { namespace: undefined, root: `${P}/ui/web/proxy`, rest: '/' }],
    [`${P}/ui/web/proxy/`, { namespace: undefined, root: `${P}/ui/web/proxy`, rest: '/' }],
    [
      `${P}/ui/web/proxy/api/releases?x=1`,
      { namespace: undefined, root: `${P}/ui/web/proxy`, rest: '/api/releases' },
    ],
    [
      `${P}/namespaces/shop/ui/web/proxy/releases/shop/web`,
      { namespace: 'shop', root: `${P}/namespaces/shop/ui/web/proxy`, rest: '/releases/shop/web' },
    ],
    [`${P}/namespaces/Shop/ui/web/proxy/`, undefined],
    [`${P}/namespaces/shop/releases/web/sync`, undefined],
    [`${P}/ui/web/proxyx`, undefined],
    [`${P}/ui/other/proxy/`, undefined],
    ['/apis/other.group/v1/ui/web/proxy/', undefined],
    ['/healthz', undefined],
  ];
  for (const [url, want] of rows) assert.deepEqual(uiPath(url), want, url);
});
