import { issuanceStates, type IssuanceContext } from '../../machines/issuance.ts';

/**
 * The status name of an issuance state (decisions §8): the login and the code wait under
 * `authorization_requested` until a token is issued, and an offer burned by wrong transaction codes
 * says so (`tx_code_burned`) instead of looking lapsed.
 */
function statusName(offer: { value: unknown }, expiredReason: string | undefined): string {
  if (issuanceStates.authorizing(offer)) return 'authorization_requested';
  if (issuanceStates.expired(offer) && expiredReason === 'tx_code_burned') return 'tx_code_burned';
  return String(offer.value);
}
const TERMINAL_STATUSES = new Set(['expired', 'tx_code_burned', 'notified']);

/** `GET /oid4vci/offers/{id}/status` (decisions §8): what the wallet did with an offer, folded from its stream. */
export function statusDocument(offer: { value: unknown }, c: IssuanceContext, nowMs: number) {
  const lapsed = c.expiresAt <= nowMs && issuanceStates.preAuthorizable(offer);
  const status = lapsed ? 'expired' : statusName(offer, c.expiredReason);
  const expiredReason = lapsed ? 'lapsed' : c.expiredReason;
  return {
    status,
    terminal: TERMINAL_STATUSES.has(status),
    ...(expiredReason ? { expired_reason: expiredReason } : {}),
    grant: c.grant,
    // Who started it: the issuer's offer, or the wallet on its own (PAR without issuer_state).
    requested_by: c.codeHash || c.issuerStateHash ? 'offer' : 'wallet',
    ...(c.clientId ? { client_id: c.clientId } : {}),
    attested: c.attested === true || c.par?.attested === true,
    challenge_used: c.challengeUsed === true,
    ...(c.tokenType ? { token_type: c.tokenType } : {}),
    dpop_nonce_challenges: c.dpopNonceChallenges,
    ...(c.configurationId ? { configuration_id: c.configurationId } : {}),
    ...(c.proofCount !== undefined ? { proof_count: c.proofCount, holder_jkts: c.holderJkts } : {}),
    ...(c.keyAttestation ? { key_attestation: c.keyAttestation } : {}),
    request_encrypted: c.requestEncrypted === true,
    response_encrypted: c.responseEncrypted === true,
    ...(c.notificationEvent ? { notification_event: c.notificationEvent } : {}),
    ...(c.interactionId ? { interaction_id: c.interactionId } : {}),
  };
}
