import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KubeApiError } from './errors.ts';
import { collectPages, type Page } from './pages.ts';

const gone = () =>
  new KubeApiError(410, 'Expired', 'The provided continue parameter is too old', [], undefined);
const forbidden = () => new KubeApiError(403, 'Forbidden', 'no', [], undefined);

/** Pages served from a script: each call takes the next step (a page, or an error to throw). */
function scripted(steps: readonly (Page<string> | Error)[]) {
  const calls: (string | undefined)[] = [];
  let i = 0;
  const fetchPage = async (cont: string | undefined) => {
    calls.push(cont);
    const step = steps[i++];
    if (step === undefined) throw new Error('more calls than steps');
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetchPage, calls };
}

test('collectPages', async (t) => {
  const rows: readonly [
    string,
    readonly (Page<string> | Error)[],
    string[] | RegExp,
    (string | undefined)[],
  ][] = [
    ['one page', [{ items: ['a'], continue: undefined }], ['a'], [undefined]],
    [
      'follows continue tokens',
      [
        { items: ['a'], continue: 't1' },
        { items: ['b'], continue: undefined },
      ],
      ['a', 'b'],
      [undefined, 't1'],
    ],
    [
      '410 mid-way: starts over from the first page, keeping nothing of the expired snapshot',
      [
        { items: ['a'], continue: 't1' },
        gone(),
        { items: ['a2'], continue: 't2' },
        { items: ['b2'], continue: undefined },
      ],
      ['a2', 'b2'],
      [undefined, 't1', undefined, 't2'],
    ],
    [
      'gives up after three restarts',
      [
        { items: ['a'], continue: 't' },
        gone(),
        { items: ['a'], continue: 't' },
        gone(),
        { items: ['a'], continue: 't' },
        gone(),
        { items: ['a'], continue: 't' },
        gone(),
      ],
      /too old/,
      [undefined, 't', undefined, 't', undefined, 't', undefined, 't'],
    ],
    ['410 on the first page is not retried', [gone()], /too old/, [undefined]],
    ['other errors are not retried', [{ items: ['a'], continue: 't' }, forbidden()], /no/, [undefined, 't']],
  ];
  for (const [name, steps, want, wantCalls] of rows) {
    await t.test(name, async () => {
      const { fetchPage, calls } = scripted(steps);
      if (want instanceof RegExp) await assert.rejects(collectPages(fetchPage), want);
      else assert.deepEqual(await collectPages(fetchPage), want);
      assert.deepEqual(calls, wantCalls);
    });
  }
});
