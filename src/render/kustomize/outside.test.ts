// A kustomization reaching outside the source path: which kustomize failures are that case, and the
// sentence each gets, naming the field, the reference and the wider path, never the work directory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outsideMessage, outsideReference } from './outside.ts';

const T = '/tmp/convoy-kustomize-AbC123/src';

describe('outsideReference', () => {
  const table: [string, string, string | undefined][] = [
    [
      'a base one level up (kustomize 5.8)',
      `Error: accumulating resources: accumulation err='accumulating resources from '../base/application-controller': evalsymlink failure on '/tmp/convoy-kustomize-AbC123/base/application-controller' : lstat /tmp/convoy-kustomize-AbC123/base: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '/tmp/convoy-kustomize-AbC123/base/application-controller' : lstat /tmp/convoy-kustomize-AbC123/base: no such file or directory`,
      '../base/application-controller',
    ],
    [
      'a patch two levels up, past the work directory',
      `Error: trouble configuring builtin PatchTransformer with config: \`\npath: ../../p.yaml\n\`: failed to get the patch file from path(../../p.yaml): evalsymlink failure on '/tmp/p.yaml' : lstat /tmp/p.yaml: no such file or directory`,
      '../../p.yaml',
    ],
    [
      "a file the load restrictor refused (it exists: the work directory's own)",
      `Error: accumulating resources: accumulation err='accumulating resources from '../cm.yaml': security; file '/tmp/convoy-kustomize-AbC123/cm.yaml' is not in or below '/tmp/convoy-kustomize-AbC123/src'': must build at directory: '/tmp/convoy-kustomize-AbC123/cm.yaml': file is not directory`,
      '../cm.yaml',
    ],
    [
      'a missing file inside the path is another failure',
      `Error: accumulating resources: accumulation err='accumulating resources from 'gone.yaml': evalsymlink failure on '/tmp/convoy-kustomize-AbC123/src/gone.yaml' : lstat /tmp/convoy-kustomize-AbC123/src/gone.yaml: no such file or directory'`,
      undefined,
    ],
    [
      'a sibling directory whose name starts like the target is outside',
      `evalsymlink failure on '/tmp/convoy-kustomize-AbC123/src2/x'`,
      '../src2/x',
    ],
    ['an unrelated error', 'Error: invalid Kustomization: json: unknown field "resourcez"', undefined],
  ];
  for (const [name, stderr, want] of table) {
    it(name, () => assert.equal(outsideReference(stderr, T), want));
  }
});

describe('outsideMessage', () => {
  const table: [string, Parameters<typeof outsideMessage>, string][] = [
    [
      'one level up: the parent folder, listing the old path',
      [
        '../base/application-controller',
        { field: 'spec.source.git.path', path: 'manifests/cluster-install' },
      ],
      'the kustomization uses ../base/application-controller, outside spec.source.git.path "manifests/cluster-install": kustomize gets only the files under the path; set spec.source.git.path to "manifests", with a kustomization.yaml there whose resources list cluster-install (docs/kustomize.md, "Only the source path")',
    ],
    [
      'two levels up from a path two deep: the root',
      ['../../base', { field: 'spec.source.oci.path', path: 'deploy/prod/' }],
      'the kustomization uses ../../base, outside spec.source.oci.path "deploy/prod": kustomize gets only the files under the path; set spec.source.oci.path to "" (the source root), with a kustomization.yaml there whose resources list deploy/prod (docs/kustomize.md, "Only the source path")',
    ],
    [
      'past the root of the source: nothing to widen',
      ['../base', { field: 'spec.source.git.path', path: undefined }],
      'the kustomization uses ../base, outside spec.source.git.path "": kustomize gets only the files under the path, and ../base is outside the source itself; copy what it names under spec.source.git.path ""',
    ],
    [
      'convoy render DIR',
      ['../base', { field: 'DIR', path: 'app/overlay' }],
      'the kustomization uses ../base, outside DIR "app/overlay": kustomize gets only the files under the path; set DIR to "app", with a kustomization.yaml there whose resources list overlay (docs/kustomize.md, "Only the source path")',
    ],
  ];
  for (const [name, args, want] of table) {
    it(name, () => {
      const got = outsideMessage(...args);
      assert.equal(got, want);
      assert.doesNotMatch(got, /\/tmp\//);
    });
  }
});
