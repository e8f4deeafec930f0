/**
 * The claim ceremony's polling rules (RFC 8628 section 3.5, as spec section 3 states them), as pure
 * functions of the claim and the poll's time. The agent machine uses them in its guards; services use
 * them to know, before appending, whether a poll will grant.
 */
export const CLAIM_CODE_LIFETIME_MS = 600_000;
export const CLAIM_POLL_INTERVAL_MS = 5_000;

type ClaimStatus = 'pending' | 'approved' | 'declined' | 'expired';

export interface Claim {
  userCodeHash: string;
  email: string;
  startedAt: number;
  expiresAt: number;
  status: ClaimStatus;
  lastPollAt?: number;
}

export type PollOutcome = 'expired_token' | 'slow_down' | 'access_denied' | 'authorization_pending' | 'granted';

/** Lapse wins over everything; then pace; then the person's decision. */
export function pollOutcome(claim: Claim, at: number): PollOutcome {
  if (claim.status === 'expired' || at >= claim.expiresAt) return 'expired_token';
  if (claim.lastPollAt !== undefined && at - claim.lastPollAt < CLAIM_POLL_INTERVAL_MS) return 'slow_down';
  if (claim.status === 'declined') return 'access_denied';
  if (claim.status === 'approved') return 'granted';
  return 'authorization_pending';
}

/** A person may decide only on a pending claim whose code has not lapsed. */
export function canDecide(claim: Claim | undefined, userCodeHash: string, at: number): boolean {
  return (
    claim !== undefined && claim.status === 'pending' && claim.userCodeHash === userCodeHash && at < claim.expiresAt
  );
}
