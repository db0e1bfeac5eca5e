// The Jobs of job checks (docs/design.md#verification), one definition for both processes: the observer
// asks for a measurement's Job by name in the inventory's verification, the controller creates it under
// the Release's identity and deletes it once its verification no longer needs it, and the observer polls
// it. Both find it by the same name and namespace and tell it from an older attempt's by the same marks.
import { createHash } from 'node:crypto';
import { ANNOTATION_HOOK_RENDER_REF, GROUP } from './constants.ts';
import type { Release } from './types.ts';

/** On a job check's Job: the check it measures (with LABEL_RELEASE, what the controller lists). */
export const LABEL_VERIFICATION_CHECK = `${GROUP}/verification-check`;
/** On a job check's Job: the startedAt of the verification it measures for. */
export const ANNOTATION_VERIFICATION_STARTED_AT = `${GROUP}/verification-started-at`;
/** On a job check's Job: the render it measures (the annotation hook workloads carry too). */
export const ANNOTATION_VERIFICATION_RENDER_REF = ANNOTATION_HOOK_RENDER_REF;

const MAX_NAME = 63;
const SHORT_REF = 10;
const HASH = 8;

/** Where a Release's job checks run: the render's target namespace, else the Release's (as hooks). */
export function verificationJobNamespace(release: Release): string {
  return release.spec.render?.targetNamespace ?? release.metadata.namespace ?? 'default';
}

/**
 * `<release>-<check>-<short renderRef>-<index>`, at most 63 characters (a Job's name is its Pods'
 * job-name label). A longer release and check keep their first characters and a hash of both, so two
 * long names with a common beginning still get different Jobs.
 */
export function verificationJobName(
  release: string,
  check: string,
  renderRef: string,
  index: number,
): string {
  const hex = renderRef.startsWith('sha256:') ? renderRef.slice('sha256:'.length) : renderRef;
  const suffix = `-${hex.slice(0, SHORT_REF).toLowerCase()}-${index}`;
  const head = `${release}-${check}`;
  const room = MAX_NAME - suffix.length;
  if (head.length <= room) return `${head}${suffix}`;
  const hash = createHash('sha256').update(head).digest('hex').slice(0, HASH);
  return `${head.slice(0, room - HASH - 1).replace(/[-.]+$/, '')}-${hash}${suffix}`;
}

/** Which attempt of which check a Job measures for. */
export interface JobAttempt {
  readonly check: string;
  readonly renderRef: string;
  readonly startedAt: string;
}

/** The marks of a job check's Job, beside LABEL_RELEASE. */
export function jobAttemptMarks(a: JobAttempt): {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
} {
  return {
    labels: { [LABEL_VERIFICATION_CHECK]: a.check },
    annotations: {
      [ANNOTATION_VERIFICATION_RENDER_REF]: a.renderRef,
      [ANNOTATION_VERIFICATION_STARTED_AT]: a.startedAt,
    },
  };
}

interface MetaLike {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The Job measures this attempt of this check: an older attempt's Job of the same name does not. */
export function jobOfAttempt(metadata: MetaLike | undefined, a: JobAttempt): boolean {
  const ann = metadata?.annotations ?? {};
  return (
    metadata?.labels?.[LABEL_VERIFICATION_CHECK] === a.check &&
    ann[ANNOTATION_VERIFICATION_RENDER_REF] === a.renderRef &&
    ann[ANNOTATION_VERIFICATION_STARTED_AT] === a.startedAt
  );
}
