// ReleaseSet: one Release template rolled out to every selected Cluster of its namespace in cluster
// waves, gated on health, with a fleet-wide rollback (docs/fleets.md, docs/design.md#fleets).
import { type Static, Type } from 'typebox';
import { LabelSelector, StatusHead } from './common.ts';
import { Duration, FreeObject, ListMap, ObjectName, RenderRef, StringEnum, StringMap, Time } from './k8s.ts';
import { ReleaseSpecSchema } from './release.ts';
import { VerificationSpecSchema } from './verification.ts';

const ClusterInputSchema = Type.Object({
  cluster: ObjectName({ description: 'A Cluster of the namespace (or "local" for the local cluster).' }),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder syntax users write
  substitute: Type.Optional(StringMap({ maxProperties: 256, description: '${NAME} substitutions.' })),
  values: Type.Optional(FreeObject({ description: 'Helm values merged over the template values.' })),
});

const InputsSchema = Type.Object({
  substituteFromLabels: Type.Optional(
    StringMap({
      maxProperties: 64,
      description: 'Substitution variable → label key of the Cluster whose value it takes.',
    }),
  ),
  substituteFromAnnotations: Type.Optional(
    StringMap({
      maxProperties: 64,
      description: 'Substitution variable → annotation key of the Cluster whose value it takes.',
    }),
  ),
  valuesFromLabels: Type.Optional(
    StringMap({
      maxProperties: 64,
      description: 'Dotted Helm values path → label key of the Cluster whose value is set there (a string).',
    }),
  ),
  clusters: Type.Optional(
    ListMap(ClusterInputSchema, ['cluster'], {
      maxItems: 1000,
      description: 'Per-cluster substitutions and Helm values, applied after those from labels.',
    }),
  ),
});

/** At most this many waves may set their own verification or bake time. */
export const MAX_WAVE_SETTINGS = 16;

const WaveSchema = Type.Object({
  wave: Type.Integer({ format: 'int32', description: 'The wave these settings are for.' }),
  soak: Type.Optional(
    Duration({
      description: 'How long this wave stays Succeeded before the next wave starts (default: strategy.soak).',
    }),
  ),
  /** Replaces the template's spec.verification for this wave's members (a stricter canary check). */
  verification: Type.Optional(VerificationSpecSchema),
});
export type WaveSettings = Static<typeof WaveSchema>;

const StrategySchema = Type.Object({
  waveLabel: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 317,
      description: "Label key of a Cluster holding its wave (an integer); default: the Cluster's spec.wave.",
    }),
  ),
  maxParallel: Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 1,
      description: 'How many clusters of one wave take a revision at a time (default: all of the wave).',
    }),
  ),
  soak: Type.Optional(
    Duration({ description: 'How long a wave stays Succeeded before the next wave starts (default 0).' }),
  ),
  waves: Type.Optional(
    ListMap(WaveSchema, ['wave'], {
      maxItems: MAX_WAVE_SETTINGS,
      description: 'Settings of single waves: their own verification and bake time.',
    }),
  ),
  fleetRollback: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'true: when a revision fails on any cluster, every cluster that took it re-applies its own last healthy render.',
    }),
  ),
});

export const ReleaseSetSpecSchema = Type.Object(
  {
    template: Type.Object(
      {
        metadata: Type.Optional(
          Type.Object({
            labels: Type.Optional(StringMap({ maxProperties: 64 })),
            annotations: Type.Optional(StringMap({ maxProperties: 64 })),
          }),
        ),
        spec: ReleaseSpecSchema,
      },
      { description: 'The Release each selected cluster gets; spec.cluster is set per cluster.' },
    ),
    clusterSelector: Type.Optional(
      LabelSelector({ description: 'Clusters of the namespace to roll out to; absent: none, {}: all.' }),
    ),
    local: Type.Optional(
      Type.Object(
        {
          wave: Type.Optional(
            Type.Integer({ format: 'int32', description: "The local cluster's wave (0)." }),
          ),
        },
        { description: 'Also roll out to the cluster convoy runs in (member name "local").' },
      ),
    ),
    inputs: Type.Optional(InputsSchema),
    strategy: Type.Optional(StrategySchema),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.strategy) || !has(self.strategy.waves) || has(self.template.spec.failurePolicy) || self.strategy.waves.all(w, !has(w.verification))',
        message:
          "a wave's verification requires spec.template.spec.failurePolicy: a failed check rolls back or fails the rollout it judges",
        fieldPath: '.strategy.waves',
      },
    ],
  },
);
export type ReleaseSetSpec = Static<typeof ReleaseSetSpecSchema>;

export const MEMBER_STATES = [
  'Waiting',
  'Progressing',
  'Succeeded',
  'Failed',
  'RolledBack',
  'Paused',
  'Error',
  'Stalled',
] as const;
export const TRAIN_STATES = ['Progressing', 'Succeeded', 'Stopped', 'RolledBack'] as const;

const MemberStatusSchema = Type.Object({
  cluster: ObjectName(),
  wave: Type.Integer({ format: 'int32' }),
  release: Type.Optional(ObjectName()),
  revision: Type.Optional(Type.String({ maxLength: 64, description: 'The fleet revision it runs.' })),
  state: StringEnum(MEMBER_STATES),
  health: Type.Optional(Type.String({ maxLength: 32, description: "Its Release's Healthy condition." })),
  startedAt: Type.Optional(Time({ description: 'When it was given the train revision.' })),
  succeededAt: Type.Optional(Time({ description: 'When it was seen Succeeded on the train revision.' })),
  rollbackTo: Type.Optional(
    RenderRef({ description: 'Its last healthy render before the train: what a fleet rollback re-applies.' }),
  ),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
});

const count = () => Type.Integer({ format: 'int32', minimum: 0 });

export const ReleaseSetStatusSchema = Type.Object({
  ...StatusHead(),
  revision: Type.Optional(
    Type.String({ maxLength: 64, description: 'The fleet revision of spec (template and inputs).' }),
  ),
  train: Type.Optional(
    Type.Object({
      revision: Type.String({ maxLength: 64 }),
      id: Type.String({ maxLength: 128, description: 'Revision, and the forced sync that started it.' }),
      state: StringEnum(TRAIN_STATES),
      wave: Type.Optional(Type.Integer({ format: 'int32', description: 'The highest wave started.' })),
      startedAt: Time(),
      finishedAt: Type.Optional(Time()),
      failedCluster: Type.Optional(ObjectName()),
      reason: Type.Optional(Type.String({ maxLength: 1024 })),
      message: Type.Optional(Type.String({ maxLength: 4096 })),
      rolledBack: Type.Optional(
        Type.Array(ObjectName(), {
          maxItems: 5000,
          description: 'Clusters that re-applied their last healthy render.',
        }),
      ),
    }),
  ),
  good: Type.Optional(
    Type.Object(
      {
        revision: Type.String({ maxLength: 64 }),
        template: FreeObject(),
        inputs: Type.Optional(FreeObject()),
        waves: Type.Optional(
          Type.Array(FreeObject(), { maxItems: MAX_WAVE_SETTINGS, description: "Its waves' verification." }),
        ),
      },
      { description: 'The last revision that Succeeded on every cluster: what a cluster added gets.' },
    ),
  ),
  clusters: Type.Optional(ListMap(MemberStatusSchema, ['cluster'], { maxItems: 5000 })),
  summary: Type.Optional(
    Type.Object({
      total: count(),
      succeeded: count(),
      progressing: count(),
      waiting: count(),
      failed: count(),
      paused: count(),
      ready: Type.String({ maxLength: 32, description: 'succeeded/total (the READY column).' }),
    }),
  ),
  lastHandledForceSyncAt: Type.Optional(Type.String({ maxLength: 64 })),
  message: Type.Optional(Type.String({ maxLength: 256 })),
});
export type ReleaseSetStatus = Static<typeof ReleaseSetStatusSchema>;
