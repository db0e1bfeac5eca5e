// Fixtures of the detectDrift tables: a Deployment as a render has it and as the API server returns it
// (canonical quantities, defaults, server metadata, status), a ConfigMap, and the drifted paths of a result.
import type { DriftResult } from './detect.ts';

export type O = Record<string, unknown> & { apiVersion: string; kind: string };

export const LABEL = { 'convoy.kumodo.io/release': 'prod.web' };

export const deployment = (
  over: { replicas?: unknown; containers?: unknown[]; extraSpec?: object } = {},
): O => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: LABEL },
  spec: {
    replicas: over.replicas ?? 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: over.containers ?? [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'MODE', value: 'prod' }],
            resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: 0.5 } },
          },
        ],
        ...over.extraSpec,
      },
    },
  },
});

/** What the API server returns for deployment(): canonical quantities, defaults, server metadata, status. */
export const liveDeployment = (
  over: { replicas?: number; image?: string; env?: unknown[]; sidecarFirst?: boolean } = {},
): O => {
  const web = {
    name: 'web',
    image: over.image ?? 'nginx:1.27',
    ports: [{ containerPort: 80, protocol: 'TCP' }],
    env: over.env ?? [{ name: 'MODE', value: 'prod' }],
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
    terminationMessagePath: '/dev/termination-log',
    imagePullPolicy: 'IfNotPresent',
  };
  const sidecar = { name: 'proxy', image: 'envoy:1', resources: {} };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'prod',
      labels: LABEL,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      uid: 'u',
      resourceVersion: '42',
      generation: 2,
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields: [],
    },
    spec: {
      replicas: over.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels: { app: 'web' }, creationTimestamp: null },
        spec: {
          containers: over.sidecarFirst ? [sidecar, web] : [web],
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
        },
      },
    },
    status: { replicas: 3, availableReplicas: 3 },
  };
};

export const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): O => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'prod', labels: LABEL, ...extra },
  data,
});

export const paths = (r: DriftResult) =>
  r.kind === 'drifted' ? r.differences.map((d) => d.path) : r.kind === 'deleted' ? ['(deleted)'] : [];
