// statusMessage: the one line of status.message (the MESSAGE column of `kubectl get releases`). It says
// what a person must do when Ready is False (and that a retry will not help when Stalled), what convoy
// waits for when Ready is Unknown, else how the rollout stands; warnings come first so an empty render
// or a zero deadline is seen at a glance. Pure.
import type { Condition, RolloutStatus } from '../../../api/types.ts';

export const MESSAGE_MAX = 256;

export interface MessageInput {
  readonly conditions: readonly Condition[];
  readonly rollout: RolloutStatus | undefined;
  readonly warnings: readonly string[];
}

export function statusMessage(input: MessageInput): string {
  const ready = input.conditions.find((c) => c.type === 'Ready');
  const stalled = input.conditions.find((c) => c.type === 'Stalled')?.status === 'True';
  const warnings = input.warnings.map((w) => `Warning: ${w}`);
  const parts: string[] = [...warnings];
  if (ready !== undefined && ready.status !== 'True') {
    const fix = stalled ? ' (stalled: a retry cannot fix this; change the Release or its source)' : '';
    parts.push(`${ready.reason}${fix}: ${ready.message}`);
  } else if (input.rollout !== undefined && input.rollout.state !== 'Succeeded') {
    const m = input.rollout.message ?? '';
    parts.push(`rollout ${input.rollout.state}${m === '' ? '' : `: ${m}`}`);
  } else if (ready !== undefined) {
    parts.push(ready.message);
  }
  return oneLine(parts.filter((p) => p !== '').join('; '));
}

/** Newlines folded to "; ", runs of blanks to one, cut to MESSAGE_MAX characters with an ellipsis. */
export function oneLine(text: string): string {
  const flat = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join('; ')
    .replace(/\s+/g, ' ');
  return flat.length > MESSAGE_MAX ? `${flat.slice(0, MESSAGE_MAX - 1)}…` : flat;
}
