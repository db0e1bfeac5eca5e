// revisionOf by table: an artifact's revision is its digest; a Helm chart found by tag or range carries
// its version (the tag) in front, as a chart from a chart repository does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HELM_CHART_CONFIG, revisionOf } from './source.ts';

const D = `sha256:${'c'.repeat(64)}`;
const FLUX = 'application/vnd.cncf.flux.config.v1+json';

describe('revisionOf', () => {
  const rows: [string, { digest: string; config?: { mediaType: string } }, string | undefined, string][] = [
    ['a Flux artifact by tag: the digest', { digest: D, config: { mediaType: FLUX } }, 'stable', D],
    [
      'a Helm chart by tag or range: version@digest',
      { digest: D, config: { mediaType: HELM_CHART_CONFIG } },
      '1.2.0',
      `1.2.0@${D}`,
    ],
    [
      'a Helm chart by digest: the digest',
      { digest: D, config: { mediaType: HELM_CHART_CONFIG } },
      undefined,
      D,
    ],
    ['no config at all: the digest', { digest: D }, 'v1', D],
  ];
  for (const [what, manifest, tag, want] of rows)
    it(what, () => assert.equal(revisionOf(manifest, tag), want));
});
