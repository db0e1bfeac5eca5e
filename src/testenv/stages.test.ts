// The kwok stage file: every document a Stage, the defaults kwok needs to run pods through
// their life, and the three test stages selected by label and weighted above the defaults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  stagesYaml,
  TEST_ANNOTATION_READY_DELAY,
  TEST_FAIL_MESSAGE,
  TEST_LABEL_DELAY,
  TEST_LABEL_FAIL,
  TEST_LABEL_NEVER_READY,
} from './stages.ts';

interface Stage {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    resourceRef: { apiGroup: string; kind: string };
    weight?: number;
    selector: {
      matchLabels?: Record<string, string>;
      matchExpressions?: { key: string; operator: string }[];
    };
    delay?: { durationFrom?: { jq?: { expression: string } } };
    next: { statusTemplate?: string; delete?: boolean };
  };
}

const docs = parseAllDocuments(stagesYaml());
const stages = docs.map((d) => d.toJS() as Stage);
const byName = new Map(stages.map((s) => [s.metadata.name, s]));
const stage = (name: string): Stage => {
  const s = byName.get(name);
  assert.ok(s, `stage ${name} exists`);
  return s;
};

describe('stagesYaml', () => {
  it('is valid YAML of kwok Stages with unique names', () => {
    assert.deepEqual(
      docs.flatMap((d) => d.errors.map((e) => e.message)),
      [],
    );
    for (const s of stages) {
      assert.equal(s.apiVersion, 'kwok.x-k8s.io/v1alpha1');
      assert.equal(s.kind, 'Stage');
    }
    assert.equal(byName.size, stages.length);
  });

  it('has the node and pod lifecycle kwok needs, none of them delayed but the heartbeat', () => {
    for (const [name, kind] of [
      ['node-initialize', 'Node'],
      ['node-heartbeat-with-lease', 'Node'],
      ['pod-ready', 'Pod'],
      ['pod-complete', 'Pod'],
      ['pod-delete', 'Pod'],
    ] as const) {
      const s = stage(name);
      assert.equal(s.spec.resourceRef.kind, kind, name);
      assert.equal(s.spec.weight ?? 0, 0, `${name} is a default (weight 0)`);
      if (name !== 'node-heartbeat-with-lease') assert.equal(s.spec.delay, undefined, `${name} is immediate`);
    }
    assert.equal(stage('pod-delete').spec.next.delete, true);
  });

  const testStages = [
    ['convoy-test-never-ready', TEST_LABEL_NEVER_READY],
    ['convoy-test-fail', TEST_LABEL_FAIL],
    ['convoy-test-delay', TEST_LABEL_DELAY],
  ] as const;
  for (const [name, label] of testStages) {
    it(`${name} is selected by ${label}=true and outweighs the defaults`, () => {
      const s = stage(name);
      assert.equal(s.spec.resourceRef.kind, 'Pod');
      assert.deepEqual(s.spec.selector.matchLabels, { [label]: 'true' });
      assert.ok((s.spec.weight ?? 0) > 0);
      assert.ok(
        s.spec.selector.matchExpressions?.some(
          (e) => e.key === '.metadata.deletionTimestamp' && e.operator === 'DoesNotExist',
        ),
        'leaves deleted pods to pod-delete',
      );
    });
  }

  it('never-ready runs the pod with Ready False', () => {
    const t = stage('convoy-test-never-ready').spec.next.statusTemplate ?? '';
    assert.match(t, /status: "False"\n\s+type: Ready/);
    assert.match(t, /phase: Running/);
  });

  it('pod-complete leaves never-ready Job pods running', () => {
    const keys = stage('pod-complete').spec.selector.matchExpressions?.map((e) => e.key) ?? [];
    assert.ok(keys.includes(`.metadata.labels["${TEST_LABEL_NEVER_READY}"]`));
  });

  it('fail ends the pod Failed with the documented message', () => {
    const t = stage('convoy-test-fail').spec.next.statusTemplate ?? '';
    assert.match(t, /phase: Failed/);
    assert.ok(t.includes(`message: ${JSON.stringify(TEST_FAIL_MESSAGE)}`));
  });

  it('delay reads its duration from the annotation', () => {
    assert.equal(
      stage('convoy-test-delay').spec.delay?.durationFrom?.jq?.expression,
      `.metadata.annotations["${TEST_ANNOTATION_READY_DELAY}"]`,
    );
  });
});

describe('what public charts ask of the simulated cluster', () => {
  it('nodes have ephemeral-storage besides cpu, memory and pods', () => {
    const template = stage('node-initialize').spec.next.statusTemplate ?? '';
    for (const field of ['allocatable', 'capacity']) {
      const block = template.slice(template.indexOf(`${field}:`));
      assert.match(block, /ephemeral-storage: 1Pi/, field);
    }
  });

  it('a LoadBalancer Service without an address gets its cluster IP as ingress', () => {
    const s = stage('service-load-balancer');
    assert.deepEqual(s.spec.resourceRef, { apiGroup: 'v1', kind: 'Service' });
    const keys = (s.spec.selector.matchExpressions ?? []).map((e) => `${e.key} ${e.operator}`);
    assert.deepEqual(keys, [
      '.spec.type In',
      '.status.loadBalancer.ingress DoesNotExist',
      '.metadata.deletionTimestamp DoesNotExist',
    ]);
    assert.match(s.spec.next.statusTemplate ?? '', /- ip: \{\{ \.spec\.clusterIP \| Quote \}\}/);
  });
});
