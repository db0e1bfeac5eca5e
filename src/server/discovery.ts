// The discovery documents the aggregation layer and kubectl read: /apis (APIGroupList), the group
// (APIGroup) and the version (APIResourceList). Subresource-only, like metrics.k8s.io's verbs: the
// releases themselves are served by the CRD group convoy.kumodo.io.
import { API_GROUP, API_VERSION, GROUP_VERSION } from './routes.ts';

const version = { groupVersion: GROUP_VERSION, version: API_VERSION };

export function apiGroup(): Record<string, unknown> {
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: API_GROUP,
    versions: [version],
    preferredVersion: version,
  };
}

export function apiGroupList(): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...group } = apiGroup();
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] };
}

/** Kind names the responses carry (`kind` of each JSON body). */
export const RESPONSE_KINDS = {
  sync: 'ReleaseSync',
  health: 'ReleaseHealth',
  history: 'ReleaseHistory',
  renders: 'Render',
} as const;

export function apiResourceList(): Record<string, unknown> {
  const sub = (name: keyof typeof RESPONSE_KINDS, verbs: string[]) => ({
    name: `releases/${name}`,
    singularName: '',
    namespaced: true,
    kind: RESPONSE_KINDS[name],
    verbs,
  });
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: GROUP_VERSION,
    resources: [
      sub('sync', ['create']),
      sub('health', ['get']),
      sub('history', ['get']),
      sub('renders', ['get']),
    ],
  };
}
