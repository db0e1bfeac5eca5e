// The Ready condition of Alerts, Providers and Receivers, and what else their status says, decided from
// the spec and what deliveries learnt. Messages hold no times and no secrets, so a steady state writes
// nothing and nothing leaks: a failure says what failed (HTTP 503, timed out, Secret x not found), never
// the URL or a header. Pure.
import { receiverPath } from '../api/constants.ts';
import type { Alert, Provider, Receiver } from '../api/types.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import type { ProviderHealth } from './notifier.ts';

export interface ConditionValueOf {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

export function alertStatusValue(alert: Alert, provider: Provider | undefined): ConditionValueOf {
  const name = alert.spec.providerRef.name;
  if (alert.spec.suspend === true) {
    return { status: 'False', reason: 'Suspended', message: 'spec.suspend is true: nothing is sent' };
  }
  if (provider === undefined) {
    return {
      status: 'False',
      reason: 'ProviderNotFound',
      message: `spec.providerRef: Provider ${JSON.stringify(name)} not found in namespace ${JSON.stringify(namespaceOf(alert))}; messages wait for it`,
    };
  }
  const events = alert.spec.events?.length ? alert.spec.events.join(', ') : 'every event';
  return {
    status: 'True',
    reason: 'Ready',
    message: `${events} at severity ${alert.spec.severity ?? 'info'} or above to Provider ${name}`,
  };
}

export function providerStatusValue(
  provider: Provider,
  health: ProviderHealth | undefined,
): { condition: ConditionValueOf; lastDeliveryTime: string | undefined } {
  if (provider.spec.suspend === true) {
    return {
      condition: { status: 'False', reason: 'Suspended', message: 'spec.suspend is true: nothing is sent' },
      lastDeliveryTime: health?.lastDeliveryTime,
    };
  }
  switch (health?.kind) {
    case undefined:
      return {
        condition: { status: 'True', reason: 'Ready', message: 'no message sent yet' },
        lastDeliveryTime: undefined,
      };
    case 'ok':
      return {
        condition: { status: 'True', reason: 'Delivered', message: 'the last message was delivered' },
        lastDeliveryTime: health.lastDeliveryTime,
      };
    case 'failing':
      return {
        condition: {
          status: 'False',
          reason: 'DeliveryFailed',
          message: `the last attempt failed: ${health.why}; messages are retried with backoff`,
        },
        lastDeliveryTime: health.lastDeliveryTime,
      };
  }
}

/** What was learnt of a Receiver's Secret: its keys (never the values), that it is missing, or unread. */
export type ReceiverSecret =
  | { readonly kind: 'found'; readonly keys: readonly string[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly why: string };

export function receiverStatusValue(
  receiver: Receiver,
  secret: ReceiverSecret,
): {
  condition: ConditionValueOf;
  webhookPath: string;
} {
  const webhookPath = receiverPath(namespaceOf(receiver), nameOf(receiver));
  if (receiver.spec.suspend === true) {
    return {
      condition: { status: 'False', reason: 'Suspended', message: 'spec.suspend is true: pushes get 503' },
      webhookPath,
    };
  }
  const name = JSON.stringify(receiver.spec.secretRef.name);
  if (secret.kind === 'unreadable') {
    return {
      condition: {
        status: 'Unknown',
        reason: 'SecretUnreadable',
        message: `spec.secretRef: Secret ${name} could not be read (${secret.why}); retried`,
      },
      webhookPath,
    };
  }
  if (secret.kind === 'missing') {
    return {
      condition: {
        status: 'False',
        reason: 'SecretNotFound',
        message: `spec.secretRef: Secret ${name} not found in namespace ${JSON.stringify(namespaceOf(receiver))}; pushes get 503 until it exists`,
      },
      webhookPath,
    };
  }
  if (!secret.keys.includes('token')) {
    return {
      condition: {
        status: 'False',
        reason: 'SecretKeyMissing',
        message: `spec.secretRef: Secret ${name} has no key "token"; pushes get 503 until it has`,
      },
      webhookPath,
    };
  }
  return {
    condition: {
      status: 'True',
      reason: 'Ready',
      message: `${receiver.spec.type} pushes to ${webhookPath} on convoy's HTTP API request a sync`,
    },
    webhookPath,
  };
}
