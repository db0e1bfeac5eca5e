// bench:scale's plot: one polyline per series with a point per size, drawn by the number of Releases
// whatever order the sizes ran in, higher values higher up, and text escaped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scalePlot } from './scale-plot.ts';

const point = (releases: number, seconds: number) => ({
  releases,
  seconds,
  floorSeconds: seconds / 4,
  manager: 100 + releases / 100,
  observer: 90,
});

test('scalePlot: a polyline per series, a point per size, in the order of the sizes', () => {
  const svg = scalePlot([point(1000, 30), point(100, 5), point(10000, 300)]);
  const lines = [...svg.matchAll(/<polyline class="series" data-name="([^"]+)"[^>]* points="([^"]+)"/g)];
  assert.deepEqual(
    lines.map((m) => m[1]),
    ['convoy', 'kubectl floor', 'controller-manager', 'observer'],
  );
  const convoy = (lines[0]?.[2] ?? '').split(' ').map((p) => p.split(',').map(Number));
  assert.equal(convoy.length, 3);
  const xs = convoy.map(([x]) => x ?? 0);
  const ys = convoy.map(([, y]) => y ?? 0);
  assert.ok((xs[0] ?? 0) < (xs[1] ?? 0) && (xs[1] ?? 0) < (xs[2] ?? 0), 'left to right by Releases');
  assert.ok((ys[0] ?? 0) > (ys[2] ?? 0), 'more seconds higher up (smaller y)');
  for (const n of ['100', '1000', '10000']) assert.match(svg, new RegExp(`>${n}</text>`));
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
});
