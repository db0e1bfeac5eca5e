// Fixtures of the observer's status parts for the tests of ./status-parts.ts and ./status-writer.ts.
import type { Condition, Release, ReleaseStatus } from '../api/types.ts';
import type { PartBody } from './status-parts.ts';

export const cond = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: reason,
  lastTransitionTime: '2030-01-01T00:00:00Z',
});

/** The health loop's part: Healthy unless another reason is given (then Unknown). */
export const health = (reason = 'Healthy'): PartBody<'health'> => ({
  conditions: [cond('Healthy', reason === 'Healthy' ? 'True' : 'Unknown', reason)],
  healthSummary: { healthy: 1, progressing: 0, degraded: 0, unknown: 0, total: 1 },
});

/** The drift loop's part: in sync unless another reason is given (then drifted). */
export const drift = (reason = 'InSync'): PartBody<'drift'> => ({
  conditions: [cond('Drifted', reason === 'InSync' ? 'False' : 'True', reason)],
  driftSummary: { drifted: reason === 'InSync' ? 0 : 1, total: 1 },
});

/** Release ns/r with `status`, as an informer cache holds it. */
export const release = (status?: ReleaseStatus, uid = 'u1'): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace: 'ns', uid, resourceVersion: '1' },
  spec: { source: { inline: { manifests: '' } } },
  ...(status === undefined ? {} : { status }),
});
