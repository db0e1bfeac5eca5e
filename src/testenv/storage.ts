// The default StorageClass of the local control plane: public charts (Bitnami's StatefulSets, databases)
// ask for PersistentVolumeClaims without a class and wait for them to bind. kube-controller-manager's
// hostPath provisioner (--enable-hostpath-provisioner, flags.ts) makes a volume per claim and its
// persistentvolume-binder binds it; Immediate binding, so a claim binds before any pod uses it.

export const DEFAULT_STORAGE_CLASS = 'standard';

export function defaultStorageClass(): object {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: DEFAULT_STORAGE_CLASS,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
}
