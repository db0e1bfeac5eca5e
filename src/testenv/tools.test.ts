// The image builds the same kustomize and helm the tests build: the Dockerfile's pinned versions are
// the ones tools-versions.json names. And the tools' cache is keyed apart from the control plane's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cacheRoot } from './build.ts';
import { TOOL_VERSIONS, toolsCacheRoot } from './tools.ts';

describe('render tools', () => {
  it('the Dockerfile pins the versions tools-versions.json names', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    assert.match(dockerfile, new RegExp(`ARG KUSTOMIZE_VERSION=${TOOL_VERSIONS.kustomize}\\n`));
    assert.match(dockerfile, new RegExp(`ARG HELM_VERSION=${TOOL_VERSIONS.helm}\\n`));
    assert.match(dockerfile, new RegExp(`FROM golang:${TOOL_VERSIONS.go} AS tools`));
  });
  it('is cached apart from the control plane', () => {
    assert.notEqual(toolsCacheRoot(), cacheRoot());
    assert.match(toolsCacheRoot(), /convoy\/tools\/[0-9a-f]{12}$/);
  });
});
