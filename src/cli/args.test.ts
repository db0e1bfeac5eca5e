import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Command, parseCommand } from './args.ts';

const REF = `sha256:${'a'.repeat(64)}`;
const G = { allNamespaces: false, output: 'table' } as const;

test('commands and their flags', () => {
  const cases: [string[], Command][] = [
    [[], { kind: 'help' }],
    [['get'], { kind: 'get', global: G }],
    [
      ['list', '-A', '-o', 'json'],
      {
        kind: 'get',
        global: { allNamespaces: true, output: 'json' },
      },
    ],
    [
      ['get', 'web', '-n', 'team', '--kubeconfig', '/k', '--context', 'c', '-o', 'yaml'],
      {
        kind: 'get',
        name: 'web',
        global: { kubeconfig: '/k', context: 'c', namespace: 'team', allNamespaces: false, output: 'yaml' },
      },
    ],
    [
      ['sync', 'web', '--force'],
      { kind: 'sync', name: 'web', force: true, direct: false, approve: false, yes: false, global: g() },
    ],
    [
      ['sync', 'web', '--direct'],
      { kind: 'sync', name: 'web', force: false, direct: true, approve: false, yes: false, global: g() },
    ],
    [
      ['sync', 'web', '--approve', '-y'],
      { kind: 'sync', name: 'web', force: false, direct: false, approve: true, yes: true, global: g() },
    ],
    [['pin', 'web', 'abcdef012345'], { kind: 'pin', name: 'web', renderRef: 'abcdef012345', global: g() }],
    [['help', 'rules', 'eval'], { kind: 'help', topic: 'rules eval' }],
    [['watch', '--help'], { kind: 'help', topic: 'watch' }],
    [['rules', 'eval', '-h'], { kind: 'help', topic: 'rules eval' }],
    [['dev', '--help'], { kind: 'help', topic: 'dev' }],
    [['dev', '--nodes', '2'], { kind: 'dev', args: ['--nodes', '2'] }],
    [
      ['get', '-A', '--status-selector', 'ready=false,rollout=Failed', '-l', 'team=a'],
      {
        kind: 'get',
        labelSelector: 'team=a',
        statusSelector: { ready: 'False', rollout: 'Failed' },
        global: { allNamespaces: true, output: 'table' },
      },
    ],
    [['approve', 'web', '-y'], { kind: 'approve', name: 'web', yes: true, direct: false, global: g() }],
    [['pin', 'web', REF], { kind: 'pin', name: 'web', renderRef: REF, global: g() }],
    [['unpin', 'web'], { kind: 'unpin', name: 'web', global: g() }],
    [['rollback', 'web'], { kind: 'rollback', name: 'web', global: g() }],
    [['diff', 'web'], { kind: 'diff', name: 'web', from: { kind: 'current' }, global: g() }],
    [
      ['diff', 'web', '--render', REF],
      { kind: 'diff', name: 'web', from: { kind: 'render', renderRef: REF }, global: g() },
    ],
    [
      ['diff', 'web', '--dir', './app'],
      { kind: 'diff', name: 'web', from: { kind: 'dir', dir: './app' }, global: g() },
    ],
    [
      ['render', './app', '--target-namespace', 'ns', '--substitute', 'A=1', '--substitute', 'B=x=y'],
      {
        kind: 'render',
        dir: './app',
        targetNamespace: 'ns',
        substitute: { A: '1', B: 'x=y' },
        refOnly: false,
        apiVersions: [],
        global: g(),
      },
    ],
    [
      ['render', './app', '--ref-only'],
      { kind: 'render', dir: './app', substitute: {}, refOnly: true, apiVersions: [], global: g() },
    ],
    [
      [
        'render',
        './chart',
        '--release',
        'r.yaml',
        '--type',
        'Helm',
        '--kube-version',
        'v1.36.0',
        '--api-versions',
        'a/v1',
        '--api-versions',
        'b/v2',
      ],
      {
        kind: 'render',
        dir: './chart',
        substitute: {},
        refOnly: false,
        release: 'r.yaml',
        type: 'Helm',
        kubeVersion: 'v1.36.0',
        apiVersions: ['a/v1', 'b/v2'],
        global: g(),
      },
    ],
    [['watch', 'web', '--timeout', '2m'], { kind: 'watch', name: 'web', timeoutMs: 120_000, global: g() }],
    [['watch', 'web', '--render', REF], { kind: 'watch', name: 'web', renderRef: REF, global: g() }],
    [
      ['rules', 'eval', '--rules', 'default', '--rules', 'r.yaml', 'a.yaml', 'b.yaml'],
      { kind: 'rulesEval', rules: ['default', 'r.yaml'], objects: ['a.yaml', 'b.yaml'], output: 'table' },
    ],
    [
      ['rules', 'eval', 'a.yaml'],
      { kind: 'rulesEval', rules: ['default', 'library'], objects: ['a.yaml'], output: 'table' },
    ],
    [
      ['rules', 'eval', '-o', 'json', '--expect', 'fixtures'],
      { kind: 'rulesEval', rules: ['default', 'library'], objects: [], output: 'json', expect: 'fixtures' },
    ],
  ];
  for (const [argv, want] of cases) {
    const got = parseCommand(argv);
    assert.ok(got.ok, `${argv.join(' ')}: ${got.ok ? '' : got.message}`);
    assert.deepEqual(got.command, want, argv.join(' '));
  }
});

function g() {
  return { allNamespaces: false, output: 'table' as const };
}

test('usage errors name what is wrong', () => {
  const cases: [string[], RegExp][] = [
    [['frobnicate'], /unknown command "frobnicate"/],
    [['status'], /^status: expected NAME$/],
    [['status', 'a', 'b'], /expected NAME, got 2 arguments \(a b\)/],
    [['get', 'a', '-o', 'wide'], /--output must be one of table, yaml, json/],
    [['get', 'a', '-A'], /NAME cannot be used with -A/],
    [['status', 'a', '-A'], /^status: unknown flag -A$/],
    [['pin', 'web', 'abc'], /REF must be a render id/],
    [['pin', 'web', 'sha256:xyz'], /REF must be a render id/],
    [['watch', 'web', '--render', 'nope'], /--render must be a render id/],
    [['get', '--status-selector', 'ready=maybe'], /ready takes True, False or Unknown/],
    [['get', '--status-selector', 'colour=red'], /unknown key "colour"/],
    [['sync', 'web', '--yes'], /--yes only goes with --approve/],
    [['get', '--selector'], /^get: --selector needs a value \(SELECTOR\)$/],
    [['sync', 'web', '--force=yes'], /^sync: --force takes no value$/],
    [['help', 'frob'], /help: unknown command "frob"/],
    [['pin', 'web'], /expected NAME and REF/],
    [['diff', 'web', '--dir', 'x', '--render', REF], /exclude each other/],
    [['render', 'x', '--substitute', 'novalue'], /NAME=value/],
    [['render', 'x', '--type', 'Jsonnet'], /--type must be Plain, Kustomize or Helm/],
    [['watch', 'web', '--timeout', 'soon'], /--timeout must be a duration/],
    [['watch', 'web', '--timeout', '0'], /--timeout must be a duration/],
    [['sync', 'web', '--forse'], /^sync: unknown flag --forse$/],
    [['rules', 'eval', '-o', 'yaml', 'a.yaml'], /--output must be table or json/],
    [['rules', 'eval', '--expect', 'dir', 'a.yaml'], /do not name OBJECT files as well/],
    [['rules', 'eval', '--rules', 'default'], /at least one OBJECT/],
    [['rules', 'check'], /unknown subcommand "check"/],
    [
      ['push', 'artifact', 'dir', 'oci://reg.example/acme/web'],
      /^push artifact: "oci:\/\/reg\.example\/acme\/web" names no tag; usage: convoy push artifact DIR oci:\/\/HOST\/REPO:TAG \(e\.g\. oci:\/\/reg\.example\/acme\/web:1\.0\.0\)$/,
    ],
    [['push', 'artifact', 'dir', 'oci://localhost:5000/web'], /names no tag/],
  ];
  for (const [argv, want] of cases) {
    const got = parseCommand(argv);
    assert.equal(got.ok, false, argv.join(' '));
    assert.match(got.ok ? '' : got.message, want, argv.join(' '));
  }
});
