// kwok Stage definitions for the local control plane: zero-delay node and pod lifecycles
// (so rollouts finish in well under a second) plus three test stages picked by pod label.
// kwok picks among matching stages by weight and drops weight-0 ones when any matching
// stage has a positive weight, so the test stages (weight 10) beat the defaults.

export const TEST_LABEL_NEVER_READY = 'convoy.kumodo.io/test-never-ready';
export const TEST_LABEL_FAIL = 'convoy.kumodo.io/test-fail';
export const TEST_LABEL_DELAY = 'convoy.kumodo.io/test-delay';
export const TEST_ANNOTATION_READY_DELAY = 'convoy.kumodo.io/test-ready-delay';
/** The message a pod failed by the test-fail stage carries in status.message. */
export const TEST_FAIL_MESSAGE = 'convoy test stage: container exited with code 1';

/** What a test puts on a pod template to pick a test stage for its pods. */
export interface PodStage {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** The test stages by name: pods that never become Ready, that fail, or that are Ready after `delay`. */
export const TEST_STAGE = {
  none: { labels: {}, annotations: {} },
  neverReady: { labels: { [TEST_LABEL_NEVER_READY]: 'true' }, annotations: {} },
  fail: { labels: { [TEST_LABEL_FAIL]: 'true' }, annotations: {} },
  readyAfter: (delay: string): PodStage => ({
    labels: { [TEST_LABEL_DELAY]: 'true' },
    annotations: { [TEST_ANNOTATION_READY_DELAY]: delay },
  }),
} as const satisfies Record<string, PodStage | ((delay: string) => PodStage)>;

const notDeleting = `
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'`;

const phaseIs = (...phases: string[]) => `
    - key: '.status.phase'
      operator: 'In'
      values: [${phases.map((p) => `'${p}'`).join(', ')}]`;

const notReady = `
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values: ['True']`;

const withoutLabel = (label: string) => `
    - key: '.metadata.labels["${label}"]'
      operator: 'DoesNotExist'`;

const nodeConditions = `
      {{ $now := Now }}
      {{ $lastTransitionTime := or .metadata.creationTimestamp $now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $lastTransitionTime | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}`;

const nodeAddresses = `
      addresses:
      {{ with .status.addresses }}
      {{ YAML . 1 }}
      {{ else }}
      {{ with NodeIP }}
      - address: {{ . | Quote }}
        type: InternalIP
      {{ end }}
      {{ with NodeName }}
      - address: {{ . | Quote }}
        type: Hostname
      {{ end }}
      {{ end }}`;

// Where kube-apiserver reaches the node's kubelet API (kwok's --node-port: Pod logs). Set once, at
// initialization: the heartbeat leaves it alone, so a test may point a node at a kubelet of its own.
const nodeDaemonEndpoints = `
      {{ with NodePort }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ . }}
      {{ end }}`;

/**
 * status.allocatable or status.capacity: what the node has, else more than any test or public chart asks
 * for (Bitnami's charts request ephemeral-storage; a node without it fits none of their pods).
 */
const nodeResources = (field: 'allocatable' | 'capacity') => `
      ${field}:
      {{ with .status.${field} }}
      {{ YAML . 1 }}
      {{ else }}
        cpu: 1k
        memory: 1Ti
        ephemeral-storage: 1Pi
        pods: 1M
      {{ end }}`;

const nodeInitialize = `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:${notReady}
  next:
    statusTemplate: |${nodeConditions}${nodeAddresses}${nodeDaemonEndpoints}${nodeResources('allocatable')}${nodeResources('capacity')}
      nodeInfo:
        architecture: amd64
        containerRuntimeVersion: kwok
        kernelVersion: kwok
        kubeletVersion: kwok
        kubeProxyVersion: kwok
        operatingSystem: linux
      phase: Running
`;

// The Lease (renewed by kwok itself, with --node-lease-duration-seconds) is what node-lifecycle
// watches; the status heartbeat only needs to come now and then.
const nodeHeartbeat = `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-heartbeat-with-lease
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:${phaseIs('Running')}
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'In'
      values: ['True']
  delay:
    durationMilliseconds: 600000
    jitterDurationMilliseconds: 610000
  next:
    statusTemplate: |${nodeConditions}${nodeAddresses}
`;

/** hostIP(s) or podIP(s): the first of the addresses `expr` gives, and all of them. */
const ips = (field: 'hostIP' | 'podIP', expr: string) => `
      {{ $${field}s := ${expr} }}
      {{ with $${field}s }}
      ${field}: {{ index . 0 | Quote }}
      ${field}s:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}`;

const podIPs =
  ips('hostIP', 'NodeIPsWith .spec.nodeName') +
  ips(
    'podIP',
    'PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" )',
  );

/** Running, with every container running and Ready as given. */
const podRunning = (ready: boolean) => `
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "${ready ? 'True' : 'False'}"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "${ready ? 'True' : 'False'}"
        type: ContainersReady
      {{ range .spec.readinessGates }}
      - lastTransitionTime: {{ $now | Quote }}
        status: "${ready ? 'True' : 'False'}"
        type: {{ .conditionType | Quote }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: ${ready}
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}${podIPs}
      phase: Running
      startTime: {{ $now | Quote }}`;

const terminated = (phase: 'Succeeded' | 'Failed') => {
  const failed = phase === 'Failed';
  return `
      {{ $now := Now }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: ${failed ? 1 : 0}
            finishedAt: {{ $now | Quote }}
            reason: ${failed ? 'Error' : 'Completed'}
            startedAt: {{ $now | Quote }}${failed ? `\n            message: ${JSON.stringify(TEST_FAIL_MESSAGE)}` : ''}
      {{ end }}${failed ? `\n      reason: Error\n      message: ${JSON.stringify(TEST_FAIL_MESSAGE)}` : ''}
      phase: ${phase}`;
};

const podStage = (o: {
  name: string;
  weight?: number;
  label?: string;
  expressions: string;
  delay?: string;
  next: string;
}) => `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ${o.name}
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod${o.weight === undefined ? '' : `\n  weight: ${o.weight}`}
  selector:${o.label === undefined ? '' : `\n    matchLabels:\n      ${o.label}: 'true'`}
    matchExpressions:${o.expressions}${o.delay ?? ''}
  next:${o.next}
`;

const TEST_WEIGHT = 10;

const podStages = [
  podStage({
    name: 'pod-ready',
    expressions: notDeleting + phaseIs('Pending') + notReady,
    next: `\n    statusTemplate: |${podRunning(true)}`,
  }),
  podStage({
    name: 'pod-complete',
    expressions: `${notDeleting}${phaseIs('Running')}
    - key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values: ['Job']${withoutLabel(TEST_LABEL_NEVER_READY)}`,
    next: `\n    statusTemplate: |${terminated('Succeeded')}`,
  }),
  // kwok deletes with grace period 0; without this stage every deletion (and so every
  // rollout that replaces pods) hangs on pods nobody terminates.
  podStage({
    name: 'pod-delete',
    expressions: `
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'`,
    next: '\n    delete: true',
  }),
  podStage({
    name: 'convoy-test-never-ready',
    weight: TEST_WEIGHT,
    label: TEST_LABEL_NEVER_READY,
    expressions: notDeleting + phaseIs('Pending') + notReady,
    next: `\n    statusTemplate: |${podRunning(false)}`,
  }),
  podStage({
    name: 'convoy-test-fail',
    weight: TEST_WEIGHT,
    label: TEST_LABEL_FAIL,
    expressions: notDeleting + phaseIs('Pending', 'Running'),
    next: `\n    statusTemplate: |${terminated('Failed')}`,
  }),
  // kwok restarts the delay on every update of the pod, so it counts from the last change.
  podStage({
    name: 'convoy-test-delay',
    weight: TEST_WEIGHT,
    label: TEST_LABEL_DELAY,
    expressions: notDeleting + phaseIs('Pending') + notReady,
    delay: `
  delay:
    durationMilliseconds: 0
    durationFrom:
      jq:
        expression: '.metadata.annotations["${TEST_ANNOTATION_READY_DELAY}"]'`,
    next: `\n    statusTemplate: |${podRunning(true)}`,
  }),
];

/**
 * A Service of type LoadBalancer gets an ingress address, as a cloud's load balancer controller gives one
 * (its cluster IP: unique, and nothing routes to it here), so charts that wait for it (or show it) go on.
 */
const serviceLoadBalancer = `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: service-load-balancer
spec:
  resourceRef:
    apiGroup: v1
    kind: Service
  selector:
    matchExpressions:
    - key: '.spec.type'
      operator: 'In'
      values: ['LoadBalancer']
    - key: '.status.loadBalancer.ingress'
      operator: 'DoesNotExist'${notDeleting}
  next:
    statusTemplate: |
      loadBalancer:
        ingress:
        - ip: {{ .spec.clusterIP | Quote }}
          ipMode: VIP
`;

/** One log line in the CRI format kwok reads (time, stream, F for a full line, the text). */
export const criLogLine = (at: Date, text: string): string => `${at.toISOString()} stdout F ${text}\n`;

/** What every container logs from the start: what a web server would print as it starts and serves. */
export const podLogLines = (at: Date): string =>
  ['starting server on :8080', 'ready: accepting connections', 'GET /healthz 200 0.4ms']
    .map((text) => criLogLine(at, text))
    .join('');

/** Every container of every Pod logs the lines of `file` (CRI format), followed as it grows. */
const clusterLogs = (file: string) => `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: pod-logs
spec:
  logs:
  - logsFile: ${JSON.stringify(file)}
    follow: true
`;

/** The --config file for kwok: every stage, and the Pod logs when given, as one multi-document YAML. */
export function stagesYaml(podLogsFile?: string): string {
  const docs = [nodeInitialize, nodeHeartbeat, ...podStages, serviceLoadBalancer];
  if (podLogsFile !== undefined) docs.push(clusterLogs(podLogsFile));
  return `${docs.map((doc) => doc.trim()).join('\n---\n')}\n`;
}
