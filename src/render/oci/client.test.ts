// The pure parts of the registry client: auth challenges, tag-list paging links, layer choice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MEDIA, nextPage, parseChallenge } from './client.ts';
import { pickLayer } from './source.ts';

describe('parseChallenge', () => {
  it('reads Bearer and Basic challenges', () => {
    assert.deepEqual(
      parseChallenge('Bearer realm="https://auth.io/token",service="reg",scope="repository:a/b:pull"'),
      {
        scheme: 'bearer',
        params: { realm: 'https://auth.io/token', service: 'reg', scope: 'repository:a/b:pull' },
      },
    );
    assert.deepEqual(parseChallenge('Basic realm="convoy"'), {
      scheme: 'basic',
      params: { realm: 'convoy' },
    });
    assert.deepEqual(parseChallenge('Bearer realm=https://a/t, service=r'), {
      scheme: 'bearer',
      params: { realm: 'https://a/t', service: 'r' },
    });
  });
});

describe('nextPage', () => {
  it('follows rel=next and stops without it', () => {
    assert.equal(nextPage('</v2/a/tags/list?last=x&n=1000>; rel="next"'), '/v2/a/tags/list?last=x&n=1000');
    assert.equal(nextPage(undefined), undefined);
    assert.equal(nextPage('</v2/a/tags/list>; rel="prev"'), undefined);
  });
});

describe('pickLayer', () => {
  const d = (mediaType: string) => ({ mediaType, digest: `sha256:${mediaType.length}`, size: 1 });
  it("prefers Flux's content layer, then any tar+gzip layer", () => {
    assert.equal(
      pickLayer([d('application/vnd.oci.image.layer.v1.tar+gzip'), d(MEDIA.fluxContent)])?.mediaType,
      MEDIA.fluxContent,
    );
    assert.equal(
      pickLayer([d('text/plain'), d('application/vnd.cncf.helm.chart.content.v1.tar+gzip')])?.mediaType,
      'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
    );
    assert.equal(pickLayer([d('text/plain')]), undefined);
  });
});
