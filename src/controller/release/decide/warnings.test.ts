// Table test of releaseWarnings and of the Warning Events they make once (newWarnings).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReleaseSpec } from '../../../api/types.ts';
import { newWarnings } from '../act/events.ts';
import { releaseWarnings } from './warnings.ts';

const inline: ReleaseSpec = { source: { inline: { manifests: '' } } } as ReleaseSpec;
const withDeadline = (deadline: string): ReleaseSpec =>
  ({ ...inline, healthAssessment: {}, failurePolicy: { deadline } }) as ReleaseSpec;

test('releaseWarnings', () => {
  const reasons = (spec: ReleaseSpec, objects: number | undefined) =>
    releaseWarnings(spec, objects === undefined ? undefined : { objects: new Array(objects).fill({}) }).map(
      (w) => w.reason,
    );
  assert.deepEqual(reasons(inline, 1), []);
  assert.deepEqual(reasons(inline, 0), ['EmptyRender']);
  assert.deepEqual(reasons(inline, undefined), [], 'no render (it failed): nothing to say about it');
  assert.deepEqual(reasons(withDeadline('0'), 1), ['ZeroDeadline']);
  assert.deepEqual(reasons(withDeadline('0s'), 0), ['EmptyRender', 'ZeroDeadline']);
  assert.deepEqual(reasons(withDeadline('1m'), 1), []);
  assert.deepEqual(reasons(withDeadline('soon'), 1), [], 'the schema reports a bad duration');
  const pruneOff = { ...inline, syncPolicy: { prune: false } } as ReleaseSpec;
  assert.match(releaseWarnings(pruneOff, { objects: [] })[0]?.message ?? '', /nothing is deleted/);
  assert.match(releaseWarnings(inline, { objects: [] })[0]?.message ?? '', /pruned/);
});

test('newWarnings: one Warning Event per warning the prior message did not show', () => {
  const w = releaseWarnings(withDeadline('0'), { objects: [] });
  assert.deepEqual(
    newWarnings(undefined, w).map((e) => [e.type, e.reason]),
    [
      ['Warning', 'EmptyRender'],
      ['Warning', 'ZeroDeadline'],
    ],
  );
  const shown = `Warning: ${w[0]?.message}; Warning: ${w[1]?.message}; applied revision x`;
  assert.deepEqual(newWarnings(shown, w), []);
});
