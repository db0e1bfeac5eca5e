// Provider, Alert and Receiver (docs/notifications.md): where convoy sends word of rollout transitions
// (a webhook, a Slack-compatible incoming webhook, GitHub or GitLab commit statuses), which Releases and
// events an Alert forwards, and the push webhooks a Receiver accepts to request a sync. Secrets only ever
// come from Secret references; the status of each is written by the controller-manager (convoy-notify).
import { type Static, Type } from 'typebox';
import { LabelSelector, LocalSecretRefSchema, StatusHead } from './common.ts';
import { ListMap, ListSet, ObjectName, PositiveDuration, StringEnum, Time } from './k8s.ts';
import { ROLLOUT_STATES } from './release.ts';

export const PROVIDER_TYPES = ['generic', 'slack', 'github', 'gitlab'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** What an Alert can forward, in the order a rollout meets them: its states, then the failures beside it. */
export const ALERT_EVENTS = [
  ...ROLLOUT_STATES,
  'SyncFailed',
  'DriftDetected',
  'HookFailed',
  'VerificationInconclusive',
] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export const SEVERITIES = ['info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RECEIVER_TYPES = ['github', 'gitlab', 'generic'] as const;
export type ReceiverType = (typeof RECEIVER_TYPES)[number];

const HttpUrl = (description: string) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s]+$', description });

export const ProviderSpecSchema = Type.Object(
  {
    type: StringEnum(PROVIDER_TYPES, {
      description:
        'generic: POST of a JSON body, signed with HMAC-SHA256 when the Secret has a token; slack: a Slack-compatible incoming webhook; github, gitlab: commit statuses on the revision of each Release.',
    }),
    address: Type.Optional(
      HttpUrl(
        'generic, slack: the URL to POST to (a Secret key "address" takes precedence: Slack URLs are secrets); github: the API base (default https://api.github.com); gitlab: the API base (default https://gitlab.com/api/v4).',
      ),
    ),
    repository: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        pattern: '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$',
        description:
          'github: owner/repo; gitlab: the project path (group/project). Default: the last path segments of the Release’s git URL.',
      }),
    ),
    secretRef: Type.Optional(
      Type.Object(LocalSecretRefSchema.properties, {
        description:
          'Secret of the same namespace: key "token" (GitHub/GitLab token; generic: the HMAC-SHA256 key), key "address" (the URL).',
      }),
    ),
    timeout: Type.Optional(
      PositiveDuration({ description: 'Limit of one HTTP call (default 10s, at most 1m).' }),
    ),
    suspend: Type.Optional(Type.Boolean({ description: 'Send nothing through this provider.' })),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "self.type in ['github', 'gitlab'] ? has(self.secretRef) : true",
        message: 'github and gitlab providers need secretRef (key "token")',
      },
      {
        rule: "self.type in ['generic', 'slack'] ? (has(self.address) || has(self.secretRef)) : true",
        message: 'generic and slack providers need address or secretRef (key "address")',
      },
    ],
  },
);
export type ProviderSpec = Static<typeof ProviderSpecSchema>;

export const ProviderStatusSchema = Type.Object({
  ...StatusHead(),
  lastDeliveryTime: Type.Optional(Time({ description: 'When a message last reached the provider.' })),
});
export type ProviderStatus = Static<typeof ProviderStatusSchema>;

/** Which Releases of the namespace: both given, both must match; none given, every Release. */
const ReleaseSelectionSchema = Type.Object({
  names: Type.Optional(ListSet(ObjectName(), { maxItems: 256, description: 'Release names.' })),
  selector: Type.Optional(LabelSelector({ description: 'Labels of the Releases.' })),
});

export const AlertSpecSchema = Type.Object({
  providerRef: Type.Object(
    { name: ObjectName({ description: 'A Provider of the same namespace.' }) },
    { description: 'Where the messages go.' },
  ),
  releases: Type.Optional(ReleaseSelectionSchema),
  events: Type.Optional(
    ListSet(StringEnum(ALERT_EVENTS), {
      maxItems: ALERT_EVENTS.length,
      description: 'Events to send (default: all).',
    }),
  ),
  severity: Type.Optional(
    StringEnum(SEVERITIES, {
      description:
        'Minimum severity: info (Progressing, Succeeded), warning (DriftDetected), error (Failed, RolledBack, SyncFailed, HookFailed). Default info.',
    }),
  ),
  suspend: Type.Optional(Type.Boolean({ description: 'Send nothing for this Alert.' })),
});
export type AlertSpec = Static<typeof AlertSpecSchema>;

const NotifiedSchema = Type.Object({
  release: ObjectName(),
  event: Type.String({
    minLength: 1,
    maxLength: 32,
    description: 'The class of the event: rollout, sync, drift or hook.',
  }),
  key: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Digest of (Release uid, render, transition) last delivered.',
  }),
  time: Time(),
});

export const AlertStatusSchema = Type.Object({
  ...StatusHead(),
  notified: Type.Optional(
    ListMap(NotifiedSchema, ['release', 'event'], {
      maxItems: 10_000,
      description:
        'The last transition delivered per Release and class, so a restarted controller sends what it had not sent and nothing twice.',
    }),
  ),
});
export type AlertStatus = Static<typeof AlertStatusSchema>;
export type NotifiedEntry = Static<typeof NotifiedSchema>;

export const ReceiverSpecSchema = Type.Object({
  type: StringEnum(RECEIVER_TYPES, {
    description:
      'github: X-Hub-Signature-256 HMAC; gitlab: X-Gitlab-Token; generic: X-Convoy-Signature HMAC over {"repository": URL, "branch": name}.',
  }),
  secretRef: Type.Object(LocalSecretRefSchema.properties, {
    description: 'Secret of the same namespace whose key "token" verifies each push.',
  }),
  releases: Type.Optional(ReleaseSelectionSchema),
  suspend: Type.Optional(Type.Boolean({ description: 'Refuse every push (503).' })),
});
export type ReceiverSpec = Static<typeof ReceiverSpecSchema>;

export const ReceiverStatusSchema = Type.Object({
  ...StatusHead(),
  webhookPath: Type.Optional(
    Type.String({ maxLength: 512, description: 'Path on convoy’s HTTP API to point the git host at.' }),
  ),
});
export type ReceiverStatus = Static<typeof ReceiverStatusSchema>;
