// discoverScope over a client that answers discovery from a table: served kinds decide, an apiVersion
// not served (404) is unknown, any other failure is thrown instead of guessed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeClient } from '../kube/client.ts';
import { fromResponse } from '../kube/errors.ts';
import { discoverScope } from './discover-scope.ts';

type Resources = Awaited<ReturnType<KubeClient['resources']>>;

function client(
  answers: Record<string, Resources | number>,
): Pick<KubeClient, 'resources'> & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resources: async (v: string) => {
      asked.push(v);
      const a = answers[v];
      if (a === undefined || typeof a === 'number')
        throw fromResponse(a ?? 404, {
          reason: a === undefined ? 'NotFound' : 'ServiceUnavailable',
          message: `answer ${a}`,
        });
      return a;
    },
  };
}

const widget = (namespaced: boolean): Resources => [
  { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced },
];

test('served kinds answer from discovery; each apiVersion is asked once', async () => {
  const c = client({ 'example.com/v1': widget(false) });
  const scope = await discoverScope(c, ['example.com/v1', 'example.com/v1']);
  assert.equal(scope('example.com/v1', 'Widget'), false);
  assert.equal(scope('example.com/v1', 'Gadget'), undefined);
  assert.deepEqual(c.asked, ['example.com/v1']);
});

test('an apiVersion the server does not serve (404) is unknown, for the built-in list to decide', async () => {
  const scope = await discoverScope(client({}), ['example.com/v1']);
  assert.equal(scope('example.com/v1', 'Widget'), undefined);
});

test('any other failure is thrown, not turned into "unknown"', async () => {
  await assert.rejects(
    discoverScope(client({ 'example.com/v1': 503, 'apps/v1': [] }), ['apps/v1', 'example.com/v1']),
    (err: Error) => err.message.includes('answer 503'),
  );
});
