// Whose measurements a verification holds (docs/design.md#verification): one definition for both processes,
// so the observer never measures into, and the controller's verdict never reads, an older render's or an
// older attempt's numbers.
import type { VerificationStatus } from './schema/verification.ts';

/** The inventory's verification when it judges `renderRef` in the rollout begun at `since`, else undefined. */
export function freshVerification(
  st: VerificationStatus | undefined,
  renderRef: string,
  since: string | undefined,
): VerificationStatus | undefined {
  if (st === undefined || st.renderRef !== renderRef) return undefined;
  if (since !== undefined && Date.parse(st.startedAt) < Date.parse(since)) return undefined;
  return st;
}
