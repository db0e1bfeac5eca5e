// Release: what to render (source + render options), where to apply it, and how to roll it out
// (docs/reference/release.md).
import { type Static, Type } from 'typebox';
import { LabelSelector, LocalSecretRefSchema, StatusHead } from './common.ts';
import {
  Duration,
  FreeObject,
  ListMap,
  ObjectName,
  PositiveDuration,
  RenderRef,
  StringEnum,
  StringMap,
  Time,
} from './k8s.ts';
import { VerificationSpecSchema } from './verification.ts';

const GitRefSchema = Type.Object(
  {
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Follow this branch.' })),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Use this tag.' })),
    commit: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{7,64}$', description: 'Use this commit (hex SHA, 7 to 64 digits).' }),
    ),
  },
  {
    description: 'Which revision to fetch: exactly one of branch, tag, commit.',
    'x-kubernetes-validations': [
      {
        rule: '[has(self.branch), has(self.tag), has(self.commit)].filter(x, x).size() == 1',
        message: 'set exactly one of branch, tag or commit',
      },
    ],
  },
);

const GitSourceSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    // The forms git itself and Argo CD take: scp-like user@host:path as well as git:// (parseGitUrl
    // checks the rest: no password, no transport::, no option injection).
    pattern: '^(https?://|ssh://|git://|file://|[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:).+',
    description: 'Repository URL (https://, http://, ssh://, git://, user@host:path or file://).',
  }),
  ref: Type.Optional(GitRefSchema),
  path: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Directory inside the repository (default: its root).' }),
  ),
  secretRef: Type.Optional(LocalSecretRefSchema),
});

const OciRefSchema = Type.Object(
  {
    tag: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$',
        description: 'Use the artifact this tag names (default "latest").',
      }),
    ),
    semver: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Use the newest tag matching this semver range (">=1.0.0 <2", "^1.2", "1.x").',
      }),
    ),
    digest: Type.Optional(
      Type.String({
        pattern: '^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$',
        description: 'Use exactly this manifest digest.',
      }),
    ),
  },
  {
    description: 'Which artifact: exactly one of tag, semver, digest (none: tag "latest").',
    'x-kubernetes-validations': [
      {
        rule: '[has(self.tag), has(self.semver), has(self.digest)].filter(x, x).size() <= 1',
        message: 'set at most one of tag, semver or digest',
      },
    ],
  },
);

const OciSourceSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^oci://[^/@]+/[^:@]+$',
    description: 'Artifact repository, oci://registry[:port]/repository (no tag: that is ref).',
  }),
  ref: Type.Optional(OciRefSchema),
  path: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Directory inside the artifact (default: its root).' }),
  ),
  /** A docker-config Secret (.dockerconfigjson) with credentials for the registry. */
  secretRef: Type.Optional(LocalSecretRefSchema),
  /** A Secret whose ca.crt is the CA bundle the registry's certificate is checked against. */
  certSecretRef: Type.Optional(LocalSecretRefSchema),
  insecure: Type.Optional(
    Type.Boolean({ default: false, description: 'Speak plain HTTP to the registry (no TLS).' }),
  ),
});

const ChartSourceSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^https?://.+',
    description: 'Helm chart repository (the URL its index.yaml is under), https:// or http://.',
  }),
  name: Type.String({
    minLength: 1,
    maxLength: 250,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
    description: 'The chart in the repository index.',
  }),
  version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        'A version or a semver range ("1.2.3", "^1.2", ">=1 <2"); default: the newest without a pre-release.',
    }),
  ),
  /** A Secret with username and password for HTTP basic auth. */
  secretRef: Type.Optional(LocalSecretRefSchema),
  /** A Secret whose ca.crt is the CA bundle the repository's certificate is checked against. */
  certSecretRef: Type.Optional(LocalSecretRefSchema),
});

const InlineSourceSchema = Type.Object({
  manifests: Type.String({
    minLength: 1,
    maxLength: 1048576,
    description: 'Multi-document YAML (or JSON) of the objects to apply.',
  }),
});

const SourceSchema = Type.Object(
  {
    git: Type.Optional(GitSourceSchema),
    oci: Type.Optional(OciSourceSchema),
    chart: Type.Optional(ChartSourceSchema),
    inline: Type.Optional(InlineSourceSchema),
  },
  {
    description: 'Where the manifests come from: exactly one of git, oci, chart, inline.',
    'x-kubernetes-validations': [
      {
        rule: '[has(self.git), has(self.oci), has(self.chart), has(self.inline)].filter(x, x).size() == 1',
        message: 'set exactly one source: git, oci, chart or inline',
      },
    ],
  },
);

export const RENDER_TYPES = ['Plain', 'Kustomize', 'Helm'] as const;

const ValuesReferenceSchema = Type.Object({
  kind: StringEnum(['ConfigMap', 'Secret'] as const, {
    description: 'ConfigMap or Secret in the Release namespace.',
  }),
  name: ObjectName(),
  valuesKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: '^[-._a-zA-Z0-9]+$',
      description: 'The key holding the values (default values.yaml).',
    }),
  ),
  targetPath: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 250,
      pattern: '^[a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*$',
      description: "Dotted path the key's text is set at, as a string, instead of merging it as YAML.",
    }),
  ),
  optional: Type.Optional(
    Type.Boolean({ default: false, description: 'A missing object or key is skipped instead of an error.' }),
  ),
});

const PostRendererSchema = Type.Object({
  kustomize: Type.Object({
    patches: Type.Optional(
      Type.Array(
        Type.Object({
          patch: Type.String({
            minLength: 1,
            maxLength: 65536,
            description: 'Strategic merge or JSON 6902 patch.',
          }),
          target: Type.Optional(FreeObject({ description: 'Kustomize patch target selector.' })),
        }),
        { maxItems: 64 },
      ),
    ),
    images: Type.Optional(
      Type.Array(FreeObject({ description: 'Kustomize image override (name, newName, newTag, digest).' }), {
        maxItems: 64,
      }),
    ),
  }),
});

const HelmRenderSchema = Type.Object({
  releaseName: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 53,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      description: "Helm's release name (default: the Release's name).",
    }),
  ),
  values: Type.Optional(FreeObject({ description: 'Values given to the chart, applied last.' })),
  valuesFiles: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      maxItems: 32,
      description: 'Values files inside the source, applied in order first.',
    }),
  ),
  valuesFrom: Type.Optional(
    Type.Array(ValuesReferenceSchema, {
      maxItems: 32,
      description:
        'Values from ConfigMaps and Secrets of the Release namespace, after valuesFiles, before values.',
    }),
  ),
  postRenderers: Type.Optional(
    Type.Array(PostRendererSchema, {
      maxItems: 8,
      description: "Kustomize patches over Helm's output, in order.",
    }),
  ),
});

const RenderSchema = Type.Object(
  {
    type: Type.Optional(
      StringEnum(RENDER_TYPES, {
        default: 'Plain',
        description: 'Plain: every *.yaml, *.yml, *.json under the path; Kustomize; Helm.',
      }),
    ),
    helm: Type.Optional(HelmRenderSchema),
    kustomize: Type.Optional(
      Type.Object({
        allowRemoteResources: Type.Optional(
          Type.Boolean({
            default: false,
            description:
              'Let kustomizations name remote git or http resources, bases and components (fetched by kustomize, bounded).',
          }),
        ),
      }),
    ),
    substitute: Type.Optional(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder syntax users write
      StringMap({ maxProperties: 256, description: '${NAME} substitutions made after rendering.' }),
    ),
    targetNamespace: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        description: 'Namespace given to namespaced objects that name none.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.helm) || (has(self.type) && self.type == 'Helm')",
        message: "render.helm may only be set when render.type is 'Helm'",
        fieldPath: '.helm',
      },
      {
        rule: "!has(self.kustomize) || (has(self.type) && self.type == 'Kustomize')",
        message: "render.kustomize may only be set when render.type is 'Kustomize'",
        fieldPath: '.kustomize',
      },
    ],
  },
);

const SyncPolicySchema = Type.Object({
  mode: Type.Optional(
    StringEnum(['Auto', 'Manual'], {
      default: 'Auto',
      description: 'Manual: a new render waits until a person approves it (POST /sync {approve: true}).',
    }),
  ),
  interval: Type.Optional(
    Duration({ description: 'Source poll and reconcile interval; unset or "0": no periodic pass.' }),
  ),
  prune: Type.Optional(Type.Boolean({ default: true, description: 'Delete objects that left the render.' })),
  pruneCRDs: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Let prune and deletion delete CustomResourceDefinitions (and so every custom resource of their kinds in the cluster). Off: a CRD only leaves the inventory.',
    }),
  ),
  selfHeal: Type.Optional(
    Type.Boolean({ default: false, description: 'Re-apply when live objects drift from the render.' }),
  ),
});

const WaveSchema = Type.Object({
  wave: Type.Integer({ format: 'int32', description: 'The sync wave (convoy.kumodo.io/sync-wave).' }),
  healthStrategy: StringEnum(['WaitPrevious'], {
    description: 'WaitPrevious: apply this wave only when every object of the previous wave is Healthy.',
  }),
  timeout: Type.Optional(
    PositiveDuration({ description: 'How long to wait for the previous wave; unset: wait without limit.' }),
  ),
});

const HealthAssessmentSchema = Type.Object({
  deadline: Type.Optional(
    PositiveDuration({
      description: 'How long an object may stay unhealthy as Progressing before it is Degraded.',
    }),
  ),
  globalRuleSetSelector: Type.Optional(
    LabelSelector({ description: 'GlobalHealthRuleSets to use; absent: none, {}: all.' }),
  ),
  localRuleSetSelector: Type.Optional(
    LabelSelector({ description: 'HealthRuleSets of the Release namespace to use; absent: none, {}: all.' }),
  ),
});

const FailurePolicySchema = Type.Object({
  deadline: PositiveDuration({ description: 'Rollout deadline, counted from status.rollout.startedAt.' }),
  rollback: Type.Optional(
    StringEnum(['OnFailure', 'Never'], {
      default: 'OnFailure',
      description: 'OnFailure: re-apply the last healthy render when the deadline passes unhealthy.',
    }),
  ),
  stuckStatefulSetPods: Type.Optional(
    StringEnum(['Keep', 'Delete'], {
      default: 'Keep',
      description:
        "Delete: after a rollback re-applied the last healthy render, delete each of its StatefulSets' Pods that are not Ready and not of the StatefulSet's update revision, so the StatefulSet controller recreates them from the healthy template. Keep: leave them (with podManagementPolicy OrderedReady, Kubernetes waits for such a Pod forever).",
    }),
  ),
});

export const ReleaseSpecSchema = Type.Object(
  {
    source: SourceSchema,
    render: Type.Optional(RenderSchema),
    cluster: Type.Optional(
      Type.Object(
        { name: ObjectName({ description: 'A Cluster in the namespace of the Release.' }) },
        { description: 'Target cluster; absent: the cluster convoy runs in.' },
      ),
    ),
    serviceAccountName: Type.Optional(
      ObjectName({ description: 'Service account impersonated for every write to the local cluster.' }),
    ),
    syncPolicy: Type.Optional(SyncPolicySchema),
    waves: Type.Optional(
      ListMap(WaveSchema, ['wave'], { maxItems: 64, description: 'Per-wave health strategy.' }),
    ),
    healthAssessment: Type.Optional(HealthAssessmentSchema),
    failurePolicy: Type.Optional(FailurePolicySchema),
    verification: Type.Optional(VerificationSpecSchema),
    pin: Type.Optional(
      Type.Object(
        { renderRef: RenderRef({ description: 'A stored render to apply instead of the source.' }) },
        { description: 'Apply this stored render; no rollout.' },
      ),
    ),
    suspend: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: convoy neither syncs nor rolls back this Release (its Ready condition says Suspended) until it is false again.',
      }),
    ),
    historyLimit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 1,
        maximum: 100,
        default: 10,
        description: 'How many applied renders to keep.',
      }),
    ),
    deletionPolicy: Type.Optional(
      StringEnum(['Delete', 'Orphan'], {
        default: 'Delete',
        description: 'Delete: remove the applied objects with the Release; Orphan: keep them.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.failurePolicy) || has(self.healthAssessment)',
        message:
          'failurePolicy requires healthAssessment: without health rules the rollout verdict could never leave Pending',
        fieldPath: '.failurePolicy',
      },
      {
        rule: '!has(self.verification) || has(self.failurePolicy)',
        message:
          'verification requires failurePolicy: a failed check rolls back or fails the rollout it judges',
        fieldPath: '.verification',
      },
      {
        rule: "!has(self.source.chart) || (has(self.render) && has(self.render.type) && self.render.type == 'Helm')",
        message: 'a chart source needs render.type Helm',
        fieldPath: '.source.chart',
      },
    ],
  },
);
export type ReleaseSpec = Static<typeof ReleaseSpecSchema>;

const RenderPointer = {
  renderRef: RenderRef(),
  revision: Type.String({ maxLength: 256, description: 'Source revision (commit, digest, ...).' }),
};

export const TRIGGER_KINDS = [
  'Created',
  'Source',
  'Spec',
  'SyncRequest',
  'ForcedSync',
  'Approval',
  'Pin',
  'Rollback',
  'Resync',
] as const;

const TriggerSchema = Type.Object(
  {
    kind: StringEnum(TRIGGER_KINDS),
    by: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          'Who asked (SyncRequest, ForcedSync, Approval): user:<name> or receiver:<namespace>/<name>.',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: 256,
        description: "The rollout's reason that made convoy roll back (Rollback).",
      }),
    ),
    generation: Type.Optional(
      Type.Integer({ format: 'int64', minimum: 0, description: 'metadata.generation of the change (Spec).' }),
    ),
  },
  {
    description:
      'What made the controller attempt this render, decided once when the attempt was first recorded and never rewritten.',
  },
);

const AttemptSchema = Type.Object({
  ...RenderPointer,
  time: Time(),
  applied: Type.Boolean({ description: 'Whether the render was applied.' }),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
  trigger: Type.Optional(TriggerSchema),
});

const RenderRecordSchema = Type.Object({ ...RenderPointer, time: Time() });

export const ROLLOUT_STATES = ['Progressing', 'Succeeded', 'Failed', 'RolledBack'] as const;

const RolloutSchema = Type.Object({
  state: StringEnum(ROLLOUT_STATES),
  renderRef: RenderRef(),
  revision: Type.Optional(Type.String({ maxLength: 256 })),
  startedAt: Type.Optional(
    Time({ description: 'When the render was first applied; unset while a gate holds it.' }),
  ),
  finishedAt: Type.Optional(Time()),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
});

const WaveStatusSchema = Type.Object({
  renderRef: RenderRef(),
  wave: Type.Integer({ format: 'int32' }),
  startedAt: Time(),
  completedAt: Type.Optional(Time()),
});

const HistoryEntrySchema = Type.Object({
  ...RenderPointer,
  appliedAt: Type.Optional(
    Time({ description: 'When the render was applied; unset for one never applied.' }),
  ),
  attemptedAt: Type.Optional(
    Time({
      description:
        'When a render that was never applied was attempted: its dry run, store or PreSync hooks failed (result Failed, reason why).',
    }),
  ),
  result: Type.Optional(
    StringEnum(['Succeeded', 'Failed', 'RolledBack'] as const, {
      description: "How this render's rollout ended (unset while it runs, or without a rollout).",
    }),
  ),
  reason: Type.Optional(Type.String({ maxLength: 1024, description: "The rollout's reason when it ended." })),
  trigger: Type.Optional(TriggerSchema),
});

const count = () => Type.Integer({ format: 'int32', minimum: 0 });

export const ReleaseStatusSchema = Type.Object({
  ...StatusHead(),
  currentRender: Type.Optional(
    Type.Object(
      { ...RenderPointer },
      { description: 'The render of the last reconcile (what a manual approval applies to).' },
    ),
  ),
  lastAttempted: Type.Optional(AttemptSchema),
  lastSuccessful: Type.Optional(RenderRecordSchema),
  lastHealthy: Type.Optional(RenderRecordSchema),
  rollout: Type.Optional(RolloutSchema),
  waves: Type.Optional(ListMap(WaveStatusSchema, ['renderRef', 'wave'], { maxItems: 256 })),
  history: Type.Optional(Type.Array(HistoryEntrySchema, { maxItems: 100 })),
  healthSummary: Type.Optional(
    Type.Object({
      healthy: count(),
      progressing: count(),
      degraded: count(),
      unknown: count(),
      total: count(),
    }),
  ),
  driftSummary: Type.Optional(Type.Object({ drifted: count(), total: count() })),
  lastHandledForceSyncAt: Type.Optional(
    Type.String({ maxLength: 64, description: 'The force-sync-at annotation value last acted on.' }),
  ),
  lastHandledSyncRequestAt: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        "The sync-requested-at annotation value of a person's or a push's request last seen (the observer's wake-ups are not requests).",
    }),
  ),
  revision: Type.Optional(
    Type.String({
      maxLength: 80,
      description: 'Short form of currentRender.revision (the REVISION column of kubectl get).',
    }),
  ),
  message: Type.Optional(
    Type.String({
      maxLength: 256,
      description: 'One line saying what the Release needs or is doing (the MESSAGE column of kubectl get).',
    }),
  ),
});
export type ReleaseStatus = Static<typeof ReleaseStatusSchema>;
