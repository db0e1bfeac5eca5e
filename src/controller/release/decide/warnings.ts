// releaseWarnings: settings that are valid but almost certainly a mistake, said as a Warning Event and
// first in status.message rather than refused: a render with no objects (an edit that emptied the
// manifests prunes everything convoy applied) and a rollout deadline of zero. Pure.
import { DurationError, parseDuration } from '../../../api/duration.ts';
import type { ReleaseSpec } from '../../../api/types.ts';

export interface ReleaseWarning {
  readonly reason: 'EmptyRender' | 'ZeroDeadline';
  readonly message: string;
}

export function releaseWarnings(
  spec: ReleaseSpec,
  render: { readonly objects: readonly unknown[] } | undefined,
): readonly ReleaseWarning[] {
  const out: ReleaseWarning[] = [];
  if (render !== undefined && render.objects.length === 0) {
    out.push({
      reason: 'EmptyRender',
      message:
        spec.syncPolicy?.prune === false
          ? 'the render has no objects (syncPolicy.prune is false, so nothing is deleted)'
          : 'the render has no objects: every object convoy applied for this Release is pruned',
    });
  }
  if (spec.failurePolicy !== undefined && deadlineIsZero(spec.failurePolicy.deadline)) {
    out.push({
      reason: 'ZeroDeadline',
      message: 'failurePolicy.deadline is 0: a rollout not healthy at its first check fails at once',
    });
  }
  return out;
}

function deadlineIsZero(deadline: string): boolean {
  try {
    return parseDuration(deadline) <= 0;
  } catch (err) {
    // An unparsable duration is the schema's and the rollout's to report, not a warning.
    if (err instanceof DurationError) return false;
    throw err;
  }
}
