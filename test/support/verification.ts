// The waits of the verification e2e files (verification, verification-checks, verification-job) on their
// Release `app`, bound once to the file's system: a soak and its measurements take longer than a plain
// rollout, so each wait is bounded at 120 s, and a rollback by a failed verification is checked the same
// way in each file.
import assert from 'node:assert/strict';
import type { Release, RolloutStatus } from '../../src/api/types.ts';
import { condition } from './release.ts';
import { waitForAppRollout } from './rollout.ts';
import type { ConvoySystem } from './system.ts';

const VERIFICATION_WAIT_MS = 120_000;

/** The waits, bound to `env` (read at each call, so a file may bind them at its top level). */
export function verificationWaits(env: ConvoySystem) {
  /** Waits until the rollout of `app` in `ns` satisfies `ok`; a timeout's message carries the logs. */
  const rolloutOf = (ns: string, what: string, ok: (r: RolloutStatus, rel: Release) => boolean) =>
    waitForAppRollout(env, ns, what, ok, VERIFICATION_WAIT_MS);
  /**
   * Waits until `app` in `ns` rolled the commit `revision` back because its verification failed: the
   * rollout's reason and the Verified condition's are VerificationFailed. Returns the Release and the
   * rollout's message, which names the failed check.
   */
  const rolledBack = async (ns: string, revision: string, what: string) => {
    const rb = await rolloutOf(ns, what, (r) => r.state === 'RolledBack' && r.revision === revision);
    assert.equal(rb.status?.rollout?.reason, 'VerificationFailed');
    assert.equal(condition(rb, 'Verified')?.reason, 'VerificationFailed');
    return { release: rb, message: rb.status?.rollout?.message ?? '' };
  };
  return { rolloutOf, rolledBack };
}
