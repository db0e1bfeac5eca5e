// Job checks' pure parts (docs/design.md#verification): the shape a job spec must have, the refusals of
// resolveChecks naming the field, the run that names a measurement's Job, and an Argo Rollouts job metric.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckStatus, JobCheck, VerificationCheck } from '../api/schema/verification.ts';
import { R2 } from '../api/testsupport.ts';
import { readAnalysisTemplate } from './argo/template.ts';
import { jobPollMs, jobRun, jobSpecProblem, MAX_JOB_BYTES } from './job.ts';
import { resolveChecks } from './resolve.ts';

const container = { name: 'smoke', image: 'curlimages/curl:8', args: ['{{args.url}}'] };
const good: JobCheck = { spec: { backoffLimit: 0, template: { spec: { containers: [container] } } } };
const withPod = (pod: Record<string, unknown>): JobCheck => ({ spec: { template: { spec: pod } } });

test('jobSpecProblem: the field a Job could not be created from', () => {
  const rows: readonly [string, JobCheck, string | undefined][] = [
    ['a Job spec', good, undefined],
    ['no template', { spec: { backoffLimit: 0 } }, 'job.spec.template'],
    ['no PodSpec', { spec: { template: {} } }, 'job.spec.template.spec'],
    ['no containers', withPod({ containers: [] }), 'job.spec.template.spec.containers'],
    [
      'a container without image',
      withPod({ containers: [{ name: 'x' }] }),
      'job.spec.template.spec.containers[0]',
    ],
    [
      'restartPolicy Always',
      withPod({ containers: [container], restartPolicy: 'Always' }),
      'job.spec.template.spec.restartPolicy',
    ],
    ['OnFailure', withPod({ containers: [container], restartPolicy: 'OnFailure' }), undefined],
    ['too large', withPod({ containers: [{ ...container, args: ['x'.repeat(MAX_JOB_BYTES)] }] }), 'job'],
  ];
  for (const [name, job, field] of rows) assert.equal(jobSpecProblem(job)?.field, field, name);
});

test('resolveChecks: a job check is refused by field, never guessed', () => {
  const check = (over: Partial<VerificationCheck>): VerificationCheck => ({
    name: 'smoke',
    job: good,
    ...over,
  });
  const rows: readonly [string, VerificationCheck, string | undefined, RegExp?][] = [
    ['a job check', check({}), undefined],
    ['no template', check({ job: { spec: {} } }), 'spec.verification.checks[0].job.spec.template', /smoke/],
    [
      'a condition',
      check({ successCondition: 'result == 1' }),
      'spec.verification.checks[0]',
      /judged by how its Job ends/,
    ],
    ['a Secret arg', check({}), 'spec.verification.checks[0].job', /arg url comes from a Secret/],
    ['a bad timeout', check({ job: { ...good, timeout: '0s' } }), 'spec.verification.checks[0].job.timeout'],
  ];
  for (const [name, c, field, message] of rows) {
    const secret = name === 'a Secret arg';
    const r = resolveChecks({
      soak: '1m',
      checks: [c],
      args: [
        secret
          ? { name: 'url', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }
          : { name: 'url', value: 'http://web' },
      ],
    });
    if (field === undefined) {
      assert.ok(r.ok, r.ok ? name : r.message);
      assert.equal(r.checks[0]?.plan.provider, 'job', name);
      continue;
    }
    assert.ok(!r.ok, name);
    assert.equal(r.field, field, name);
    if (message !== undefined) assert.match(r.message, message, name);
  }
  const unknown = resolveChecks({ soak: '1m', checks: [check({})] });
  assert.ok(!unknown.ok && /unknown arg url/.test(unknown.message), 'an undeclared arg in the Job spec');
});

test('jobRun: the next measurement names its Job, the args filled in', () => {
  const status = (n: number): CheckStatus => ({
    name: 'smoke',
    phase: 'Running',
    successful: n,
    failed: 1,
    inconclusive: 1,
  });
  const run = jobRun({
    release: 'app',
    check: 'smoke',
    job: { ...good, metadata: { labels: { team: '{{args.url}}' } } },
    args: new Map([['url', { value: 'http://web', secret: false }]]),
    status: status(2),
    renderRef: R2,
    nowMs: Date.parse('2030-01-01T00:00:00.700Z'),
  });
  assert.equal(run.name, 'app-smoke-2222222222-4');
  assert.equal(run.index, 4);
  assert.equal(run.requestedAt, '2030-01-01T00:00:00Z');
  assert.equal(run.timeout, '5m');
  assert.deepEqual(run.job.metadata, { labels: { team: 'http://web' } });
  assert.deepEqual(run.job.spec, {
    backoffLimit: 0,
    template: { spec: { containers: [{ ...container, args: ['http://web'] }], restartPolicy: 'Never' } },
  });
  const first = jobRun({
    release: 'app',
    check: 'smoke',
    job: { ...good, timeout: '30s' },
    args: new Map([['url', { value: 'u', secret: false }]]),
    status: undefined,
    renderRef: R2,
    nowMs: 0,
  });
  assert.deepEqual([first.index, first.timeout], [0, '30s']);
});

test('jobPollMs: half the interval, between 1 and 5 seconds', () => {
  assert.deepEqual([jobPollMs(500), jobPollMs(4000), jobPollMs(60_000)], [1000, 2000, 5000]);
});

test('an Argo Rollouts job metric: its labels and spec read, its conditions not (Argo judges the Job)', () => {
  const spec = { backoffLimit: 1, template: { spec: { containers: [container], restartPolicy: 'Never' } } };
  const template = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'smoke' },
    spec: {
      args: [{ name: 'url' }],
      metrics: [
        {
          name: 'smoke',
          successCondition: 'result == "ok"',
          provider: { job: { metadata: { labels: { team: 'web' } }, spec } },
        },
      ],
    },
  };
  const read = readAnalysisTemplate(template);
  assert.ok(read.ok, read.ok ? '' : read.message);
  assert.deepEqual(read.checks, [{ name: 'smoke', job: { metadata: { labels: { team: 'web' } }, spec } }]);
  const bad = readAnalysisTemplate({
    ...template,
    spec: { metrics: [{ name: 'smoke', provider: { job: { metadata: { name: 'x' }, spec } } }] },
  });
  assert.ok(
    !bad.ok && /provider\.job\.metadata\.name is not translated/.test(bad.message),
    JSON.stringify(bad),
  );
});
