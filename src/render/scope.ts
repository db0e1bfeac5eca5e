// Whether a kind is namespaced, when discovery cannot say: a file alone does not tell, so the caller's
// discovery answer wins, and for kinds it does not know a built-in list of cluster-scoped kinds decides.
import { groupOf } from './keys.ts';
import type { IsNamespaced } from './types.ts';

/** Cluster-scoped kinds of Kubernetes and of convoy, by "group/Kind" ("" is the core group). */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'resource.k8s.io/DeviceClass',
  'resource.k8s.io/ResourceSlice',
  'internal.apiserver.k8s.io/StorageVersion',
  'storagemigration.k8s.io/StorageVersionMigration',
  'policy/PodSecurityPolicy',
  'convoy.kumodo.io/GlobalHealthRuleSet',
]);

/** The caller's answer, else the built-in list: unknown kinds are assumed namespaced. */
export function namespacedOf(
  isNamespaced: IsNamespaced | undefined,
  apiVersion: string,
  kind: string,
): boolean {
  const known = isNamespaced?.(apiVersion, kind);
  if (known !== undefined) return known;
  return !CLUSTER_SCOPED.has(`${groupOf(apiVersion)}/${kind}`);
}

/**
 * The namespace an object gets: a namespaced object keeps its own, else takes targetNamespace (or
 * undefined without one); a cluster-scoped object gets none, as the API server drops it on create.
 */
export function resolveNamespace(
  namespaced: boolean,
  own: string | undefined,
  targetNamespace: string | undefined,
): string | undefined {
  if (!namespaced) return undefined;
  if (own !== undefined && own !== '') return own;
  return targetNamespace === '' ? undefined : targetNamespace;
}
