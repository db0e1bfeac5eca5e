// Chart templates the Helm e2e tests share (over the real helm, with and without a cluster): a
// pre-install,pre-upgrade hook Job, which convoy runs as a PreSync hook with its delete policy, and a
// `helm test` Pod, which convoy leaves out of the render (docs/design.md#hooks).

/** templates/migrate.yaml: a Job helm runs before install and upgrade. */
export const HELM_MIGRATE_HOOK = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-delete-policy: before-hook-creation
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: registry.invalid/migrate:1}]
`;

/** templates/tests/smoke.yaml: a Pod only `helm test` runs. */
export const HELM_TEST_POD = `apiVersion: v1
kind: Pod
metadata:
  name: smoke
  annotations: {helm.sh/hook: test}
spec:
  containers: [{name: smoke, image: registry.invalid/smoke:1}]
`;
