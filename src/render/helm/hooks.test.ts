// Helm hooks as convoy hooks: a table of helm.sh/hook values on Jobs, Pods and other kinds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helmHookResource, mapHelmHook } from './hooks.ts';

const job = (annotations: Record<string, string>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j', annotations },
});
const cm = (annotations: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', annotations },
});
const hookOf = (o: ReturnType<typeof mapHelmHook>) =>
  o === undefined
    ? 'dropped'
    : ((o.metadata as { annotations?: Record<string, string> }).annotations?.['convoy.kumodo.io/hook'] ??
      'object');

describe('mapHelmHook', () => {
  const table: [string, Record<string, string>, string][] = [
    ['no hook', {}, 'object'],
    ['pre-install', { 'helm.sh/hook': 'pre-install' }, 'PreSync'],
    ['pre-upgrade', { 'helm.sh/hook': 'pre-upgrade' }, 'PreSync'],
    ['pre-install,pre-upgrade', { 'helm.sh/hook': 'pre-install, pre-upgrade' }, 'PreSync'],
    ['post-install', { 'helm.sh/hook': 'post-install' }, 'PostSync'],
    ['post-upgrade', { 'helm.sh/hook': 'post-upgrade' }, 'PostSync'],
    ['pre-delete', { 'helm.sh/hook': 'pre-delete' }, 'PreDelete'],
    ['post-delete', { 'helm.sh/hook': 'post-delete' }, 'PostDelete'],
    [
      'post-install,pre-delete: the first phase wins',
      { 'helm.sh/hook': 'post-install,pre-delete' },
      'PostSync',
    ],
    ['test', { 'helm.sh/hook': 'test' }, 'dropped'],
    ['pre-rollback only', { 'helm.sh/hook': 'pre-rollback' }, 'dropped'],
    ['pre-upgrade,pre-rollback', { 'helm.sh/hook': 'pre-upgrade,pre-rollback' }, 'PreSync'],
  ];
  for (const [name, annotations, want] of table) {
    it(`Job, ${name} → ${want}`, () => assert.equal(hookOf(mapHelmHook(job(annotations))), want));
  }
  it('maps the delete policy', () => {
    const o = mapHelmHook(
      job({
        'helm.sh/hook': 'pre-install',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      }),
    );
    const annotations = (o?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
    assert.equal(annotations?.['convoy.kumodo.io/hook-delete-policy'], 'BeforeHookCreation,HookSucceeded');
  });
  it('another kind: an install hook is an ordinary object, a delete hook is left out', () => {
    assert.equal(hookOf(mapHelmHook(cm({ 'helm.sh/hook': 'pre-install' }))), 'object');
    assert.equal(hookOf(mapHelmHook(cm({ 'helm.sh/hook': 'post-delete' }))), 'dropped');
  });
  it('maps the weight, and leaves out one Helm would not read', () => {
    const weightOf = (w: string) => {
      const o = mapHelmHook(job({ 'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': w }));
      const md = o?.metadata as { annotations?: Record<string, string> } | undefined;
      return md?.annotations?.['convoy.kumodo.io/hook-weight'];
    };
    assert.equal(weightOf('-5'), '-5');
    assert.equal(weightOf('0'), '0');
    assert.equal(weightOf('abc'), undefined);
  });
});

describe('helmHookResource', () => {
  const rows: [string, Record<string, string> | undefined, unknown][] = [
    ['no annotations', undefined, undefined],
    ['an ordinary object', {}, undefined],
    [
      "pre-install: Helm's default policy",
      { 'helm.sh/hook': 'pre-install' },
      { phase: 'PreSync', deletePolicies: ['BeforeHookCreation'], weight: 0 },
    ],
    [
      'pre-install,pre-upgrade with hook-succeeded',
      { 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-delete-policy': 'hook-succeeded' },
      { phase: 'PreSync', deletePolicies: ['HookSucceeded'], weight: 0 },
    ],
    [
      'every policy, an unknown one left out',
      {
        'helm.sh/hook': 'pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation, hook-succeeded,hook-failed,never',
      },
      { phase: 'PreSync', deletePolicies: ['BeforeHookCreation', 'HookSucceeded', 'HookFailed'], weight: 0 },
    ],
    [
      'post-install',
      { 'helm.sh/hook': 'post-install', 'helm.sh/hook-delete-policy': 'hook-failed' },
      { phase: 'PostSync', deletePolicies: ['HookFailed'], weight: 0 },
    ],
    [
      'pre-install and post-install: the first phase wins',
      { 'helm.sh/hook': 'post-install,pre-install' },
      { phase: 'PreSync', deletePolicies: ['BeforeHookCreation'], weight: 0 },
    ],
    [
      'a weight as Helm writes it',
      { 'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': '-5' },
      { phase: 'PreSync', deletePolicies: ['BeforeHookCreation'], weight: -5 },
    ],
    [
      'a weight that is not an integer reads as 0',
      { 'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': 'first' },
      { phase: 'PreSync', deletePolicies: ['BeforeHookCreation'], weight: 0 },
    ],
    ['a delete hook is not one (left out of the render)', { 'helm.sh/hook': 'pre-delete' }, undefined],
  ];
  for (const [name, annotations, want] of rows)
    it(name, () => assert.deepEqual(helmHookResource(annotations), want));
});
