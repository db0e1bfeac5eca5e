// Table tests: version order and the range syntax of Flux's and Helm's semver constraints.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareVersions,
  newestMatching,
  parseRange,
  parseVersion,
  SemverRangeError,
  satisfies,
} from './semver.ts';

const v = (s: string) => {
  const x = parseVersion(s);
  assert.ok(x, `${s} parses`);
  return x;
};

describe('parseVersion', () => {
  for (const s of ['1.2.3', 'v1.2.3', '1.2', '1', '1.0.0-rc.1', '1.0.0+build.5', '0.0.0']) {
    it(`reads ${s}`, () => assert.ok(parseVersion(s)));
  }
  for (const s of ['latest', '1.2.3.4', '01.2.3', '', 'v', '1.2.3-', 'sha256:abc']) {
    it(`refuses ${JSON.stringify(s)}`, () => assert.equal(parseVersion(s), undefined));
  }
});

describe('compareVersions', () => {
  const ordered = [
    '0.9.0',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.10.0',
    '2.0.0',
  ];
  for (let i = 1; i < ordered.length; i++) {
    it(`${ordered[i - 1]} < ${ordered[i]}`, () => {
      assert.ok(compareVersions(v(ordered[i - 1] ?? ''), v(ordered[i] ?? '')) < 0);
      assert.ok(compareVersions(v(ordered[i] ?? ''), v(ordered[i - 1] ?? '')) > 0);
    });
  }
  it('ignores build metadata and a leading v', () =>
    assert.equal(compareVersions(v('v1.2.3+a'), v('1.2.3')), 0));
});

describe('satisfies', () => {
  const table: [string, string, boolean][] = [
    ['>=1.0.0', '1.0.0', true],
    ['>=1.0.0', '0.9.9', false],
    ['>=1.0.0 <2.0.0', '1.9.9', true],
    ['>=1.0.0, <2.0.0', '2.0.0', false],
    ['>= 1.2', '1.2.0', true],
    ['^1.2.3', '1.9.0', true],
    ['^1.2.3', '2.0.0', false],
    ['^1.2.3', '1.2.2', false],
    ['^0.2.3', '0.2.9', true],
    ['^0.2.3', '0.3.0', false],
    ['^0.0.3', '0.0.4', false],
    ['~1.2.3', '1.2.9', true],
    ['~1.2.3', '1.3.0', false],
    ['~1', '1.9.0', true],
    ['~1', '2.0.0', false],
    ['1.x', '1.5.0', true],
    ['1.x', '2.0.0', false],
    ['1.2.x', '1.2.7', true],
    ['1.2.x', '1.3.0', false],
    ['*', '5.0.0', true],
    ['*', '5.0.0-rc.1', false],
    ['1.0.0 || 2.1.0', '2.1.0', true],
    ['1.0.0 || 2.1.0', '2.0.0', false],
    ['1.2 - 1.4', '1.4.0', true],
    ['1.2 - 1.4', '1.1.0', false],
    ['>1.2.3', '1.2.3', false],
    ['<=1.2.3', '1.2.3', true],
    ['<2', '1.99.0', true],
    ['<2', '2.0.0-rc.1', false],
    ['!=1.2.3', '1.2.4', true],
    ['1.2.3', 'v1.2.3', true],
    ['>=1.0.0-rc.1', '1.0.0-rc.2', true],
    ['>=1.0.0-rc.1', '1.1.0-rc.1', false],
    ['>=1.0.0', '1.1.0-rc.1', false],
  ];
  for (const [range, version, want] of table) {
    it(`${version} ${want ? 'satisfies' : 'does not satisfy'} ${range}`, () =>
      assert.equal(satisfies(v(version), parseRange(range)), want));
  }
  for (const bad of ['', 'latest', '>=one', '1.0 ||', '%1']) {
    it(`refuses range ${JSON.stringify(bad)}`, () => assert.throws(() => parseRange(bad), SemverRangeError));
  }
});

describe('newestMatching', () => {
  it('picks the newest matching tag and ignores tags that are not versions', () => {
    const tags = ['latest', '1.0.0', 'v1.3.0', '1.2.9', '2.0.0', '1.4.0-rc.1', 'main'];
    assert.equal(newestMatching(tags, parseRange('>=1.0.0 <2.0.0')), 'v1.3.0');
    assert.equal(newestMatching(tags, parseRange('*')), '2.0.0');
    assert.equal(newestMatching(tags, parseRange('>=3')), undefined);
  });
});
