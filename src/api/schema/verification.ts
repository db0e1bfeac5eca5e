// Verification: the checks that judge a render on real metrics after every object of it is Healthy
// (spec.verification), and what the observer measured (the inventory's `verification`, written under
// convoy-verification). docs/design.md#verification says who reads and writes each field.
import { type Static, Type } from 'typebox';
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

/** One key of a Secret in the Release's namespace (never another namespace: tenancy). */
export const VerificationSecretKeySchema = Type.Object({
  name: ObjectName({ description: 'A Secret in the namespace of the Release.' }),
  key: Type.String({ minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$', description: 'Its key.' }),
});
export type VerificationSecretKey = Static<typeof VerificationSecretKeySchema>;

const CHECK_NAME = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

const ValueSchema = {
  value: Type.Optional(Type.String({ maxLength: 4096 })),
  valueFrom: Type.Optional(
    Type.Object(
      { secretKeyRef: VerificationSecretKeySchema },
      { description: 'Read the value from a Secret of the Release namespace (never printed).' },
    ),
  ),
};

export const VerificationArgSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9_.-]+$' }), ...ValueSchema },
  {
    description: 'A value for {{args.<name>}} in queries, URLs, headers and bodies.',
    'x-kubernetes-validations': [
      { rule: '!(has(self.value) && has(self.valueFrom))', message: 'set value or valueFrom, not both' },
    ],
  },
);
export type VerificationArg = Static<typeof VerificationArgSchema>;

/** At most this many headers on one check; each value at most HEADER_VALUE_MAX bytes. */
export const MAX_HEADERS = 32;
export const HEADER_VALUE_MAX = 4096;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/** A header sent with every call of a check; its value may come from a Secret (never printed). */
export const HeaderSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256, pattern: HEADER_NAME }),
    ...ValueSchema,
  },
  {
    'x-kubernetes-validations': [
      { rule: 'has(self.value) != has(self.valueFrom)', message: 'set value or valueFrom, one of them' },
    ],
  },
);
export type Header = Static<typeof HeaderSchema>;

const HeadersSchema = (description: string) =>
  Type.Optional(Type.Array(HeaderSchema, { maxItems: MAX_HEADERS, description }));

const TimeoutSchema = PositiveDuration({
  description: 'How long one measurement may take (default 10s, at most 60s); past it: inconclusive.',
});

export const PrometheusCheckSchema = Type.Object({
  address: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^https?://.+',
    description: 'Prometheus base URL (http:// or https://).',
  }),
  query: Type.String({
    minLength: 1,
    maxLength: 16384,
    description: 'An instant PromQL query; {{args.<name>}} is replaced first.',
  }),
  timeout: Type.Optional(TimeoutSchema),
  bearerTokenSecretRef: Type.Optional(VerificationSecretKeySchema),
  basicAuthSecretRef: Type.Optional(
    Type.Object(
      { name: ObjectName() },
      { description: 'A Secret of the Release namespace with keys username and password.' },
    ),
  ),
  caSecretRef: Type.Optional(VerificationSecretKeySchema),
  headers: HeadersSchema(
    'Sent with every query (e.g. X-Scope-OrgID for a multi-tenant Prometheus); {{args.<name>}} is replaced.',
  ),
});
export type PrometheusCheck = Static<typeof PrometheusCheckSchema>;

export const WebCheckSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^https?://.+',
    description: 'The URL to call.',
  }),
  method: Type.Optional(StringEnum(['GET', 'POST', 'PUT'], { default: 'GET' })),
  headers: HeadersSchema('Sent with every call; {{args.<name>}} is replaced.'),
  body: Type.Optional(Type.String({ maxLength: 65536 })),
  jsonPath: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'Where the result is in the JSON answer ("{$.data.ok}"); unset: the whole answer.',
    }),
  ),
  timeout: Type.Optional(TimeoutSchema),
  caSecretRef: Type.Optional(VerificationSecretKeySchema),
});
export type WebCheck = Static<typeof WebCheckSchema>;

/** A job check's Job runs at most this long by default; past it the measurement is an Error. */
export const DEFAULT_JOB_CHECK_TIMEOUT = '5m';

export const JobCheckSchema = Type.Object({
  metadata: Type.Optional(
    Type.Object(
      { labels: Type.Optional(StringMap()), annotations: Type.Optional(StringMap()) },
      { description: "Labels and annotations of each measurement's Job." },
    ),
  ),
  spec: FreeObject({
    description:
      'A batch/v1 JobSpec, run in the target namespace under the Release identity as a hook is: Complete is a successful measurement, Failed a failed one.',
  }),
  timeout: Type.Optional(
    PositiveDuration({
      description: `How long one Job may take (default ${DEFAULT_JOB_CHECK_TIMEOUT}); past it the measurement is an Error (inconclusive), and the Job is ended.`,
    }),
  ),
});
export type JobCheck = Static<typeof JobCheckSchema>;

export const VerificationCheckSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: CHECK_NAME, description: 'Names the check.' }),
    prometheus: Type.Optional(PrometheusCheckSchema),
    web: Type.Optional(WebCheckSchema),
    job: Type.Optional(JobCheckSchema),
    successCondition: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'CEL over `result`: true is a success.' }),
    ),
    failureCondition: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'CEL over `result`: true is a failure.' }),
    ),
    failureLimit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: 1000,
        default: 0,
        description: 'Failures allowed.',
      }),
    ),
    inconclusiveLimit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: 1000,
        default: 0,
        description: 'Inconclusive measurements (no data, provider down) allowed before the rollout holds.',
      }),
    ),
    count: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 1,
        maximum: 10000,
        description: 'Measurements to take at least; unset: one per interval until the soak ends.',
      }),
    ),
    interval: Type.Optional(
      PositiveDuration({ description: 'Time between measurements (default: the verification interval).' }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '[has(self.prometheus), has(self.web), has(self.job)].filter(x, x).size() == 1',
        message: 'set exactly one provider: prometheus, web or job',
      },
      {
        rule: 'has(self.successCondition) || has(self.failureCondition) || has(self.job)',
        message: 'a prometheus or web check needs successCondition or failureCondition',
      },
      {
        rule: '!has(self.job) || !(has(self.successCondition) || has(self.failureCondition))',
        message: 'a job check is judged by how its Job ends: remove successCondition and failureCondition',
      },
    ],
  },
);
export type VerificationCheck = Static<typeof VerificationCheckSchema>;

export const VerificationTemplateRefSchema = Type.Object({
  name: ObjectName({ description: 'An Argo Rollouts AnalysisTemplate (or ClusterAnalysisTemplate).' }),
  clusterScope: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: a ClusterAnalysisTemplate; false: in the Release namespace.',
    }),
  ),
});
export type VerificationTemplateRef = Static<typeof VerificationTemplateRefSchema>;

export const VerificationSpecSchema = Type.Object(
  {
    soak: PositiveDuration({
      description: 'How long the checks run after every object of the render is Healthy (e.g. "5m").',
    }),
    interval: Type.Optional(
      PositiveDuration({ description: 'Time between measurements of a check (default "30s").' }),
    ),
    initialDelay: Type.Optional(
      Duration({
        description:
          'How long after every object is Healthy the soak begins (default "0s"): time for the metrics to cover the new render only.',
      }),
    ),
    checks: Type.Optional(ListMap(VerificationCheckSchema, ['name'], { maxItems: 16 })),
    templateRefs: Type.Optional(
      Type.Array(VerificationTemplateRefSchema, {
        maxItems: 8,
        description: 'Argo Rollouts AnalysisTemplates read as they are; their metrics become checks.',
      }),
    ),
    args: Type.Optional(ListMap(VerificationArgSchema, ['name'], { maxItems: 32 })),
  },
  {
    description: 'Checks that must pass over a soak before the render counts as healthy.',
    'x-kubernetes-validations': [
      {
        rule: '(has(self.checks) && self.checks.size() > 0) || (has(self.templateRefs) && self.templateRefs.size() > 0)',
        message: 'name at least one check or templateRef',
      },
    ],
  },
);
export type VerificationSpec = Static<typeof VerificationSpecSchema>;

export const MEASUREMENT_PHASES = ['Successful', 'Failed', 'Inconclusive', 'Error'] as const;
export type MeasurementPhase = (typeof MEASUREMENT_PHASES)[number];
export const VERIFICATION_PHASES = ['Running', 'Passed', 'Failed', 'Inconclusive'] as const;
export type VerificationPhase = (typeof VERIFICATION_PHASES)[number];

/** At most this many measurements are kept per check (the newest). */
export const MEASUREMENTS_KEPT = 60;

export const MeasurementSchema = Type.Object({
  at: Time(),
  phase: StringEnum(MEASUREMENT_PHASES),
  value: Type.Optional(Type.String({ maxLength: 256, description: 'The result, shortened.' })),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type Measurement = Static<typeof MeasurementSchema>;

/**
 * The Job of a job check's measurement in progress: the observer asks for it, the controller creates it
 * in the target namespace under the Release's identity, the observer polls it (docs/design.md#verification).
 */
export const JobRunSchema = Type.Object({
  name: ObjectName({
    description: 'The Job: <release>-<check>-<short renderRef>-<index>, at most 63 characters.',
  }),
  index: Type.Integer({
    format: 'int32',
    minimum: 0,
    description: 'Which measurement of the check, from 0.',
  }),
  requestedAt: Time({ description: 'When the observer asked for it; the timeout counts from here.' }),
  timeout: PositiveDuration(),
  job: Type.Object(
    {
      metadata: Type.Optional(
        Type.Object({ labels: Type.Optional(StringMap()), annotations: Type.Optional(StringMap()) }),
      ),
      spec: FreeObject(),
    },
    { description: "The check's Job, its plain args filled in." },
  ),
});
export type JobRun = Static<typeof JobRunSchema>;

export const CheckStatusSchema = Type.Object({
  name: Type.String({ maxLength: 63 }),
  phase: StringEnum(VERIFICATION_PHASES),
  provider: Type.Optional(StringEnum(['prometheus', 'web', 'job'])),
  query: Type.Optional(Type.String({ maxLength: 4096, description: 'What was asked (query or URL).' })),
  condition: Type.Optional(Type.String({ maxLength: 4096, description: 'The condition that decided.' })),
  successful: Type.Integer({ format: 'int32', minimum: 0 }),
  failed: Type.Integer({ format: 'int32', minimum: 0 }),
  inconclusive: Type.Integer({ format: 'int32', minimum: 0 }),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  measurements: Type.Optional(Type.Array(MeasurementSchema, { maxItems: MEASUREMENTS_KEPT })),
  run: Type.Optional(JobRunSchema),
});
export type CheckStatus = Static<typeof CheckStatusSchema>;

export const VerificationStatusSchema = Type.Object({
  renderRef: RenderRef({ description: 'The render these measurements judge.' }),
  startedAt: Time({ description: 'When the soak began: every object of the render Healthy.' }),
  phase: StringEnum(VERIFICATION_PHASES),
  reason: Type.Optional(Type.String({ maxLength: 256 })),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  finishedAt: Type.Optional(Time()),
  checks: Type.Optional(ListMap(CheckStatusSchema, ['name'], { maxItems: 24 })),
});
export type VerificationStatus = Static<typeof VerificationStatusSchema>;
