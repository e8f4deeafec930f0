import type { ContextUpdate } from './updates.ts';
import type { IssuanceContext, IssuanceEvent, IssuedCredentialRecord, StatusSlotRecord } from './issuance-types.ts';

type E<T extends IssuanceEvent['type']> = Extract<IssuanceEvent, { type: T }>;

/** `count` credentials of one configuration, valid, each at its status slot when it has one. */
const issued = (configurationId: string, count: number, statuses: StatusSlotRecord[] | undefined) =>
  Array.from({ length: count }, (_, i): IssuedCredentialRecord => ({
    configurationId,
    status: 'valid',
    ...(statuses?.[i] ? { listId: statuses[i].list_id, idx: statuses[i].idx } : {}),
  }));

/** The machine's context updates: pure, named, importable on their own (the event carries its time). */
export const issuanceUpdates = {
  recordOffer: (_: IssuanceContext, event: E<'issuance.offered'>) => ({
    grant: event.grant,
    configurationIds: event.configuration_ids,
    codeHash: event.code_hash,
    txCodeHash: event.tx_code_hash,
    issuerStateHash: event.issuer_state_hash,
    statusTokenHash: event.status_token_hash,
    expiresAt: event.expires_at,
    user: event.user,
    deferred: event.deferred === true,
  }),
  recordOfferFetched: () => ({ offerFetched: true }),
  countTxCodeFailure: (context: IssuanceContext) => ({ txCodeFailures: context.txCodeFailures + 1 }),
  recordTxCodeBurned: () => ({ expiredReason: 'tx_code_burned' }),
  recordExpiry: (_: IssuanceContext, event: E<'issuance.expired'>) => ({ expiredReason: event.reason }),
  recordAuthorizationRequest: (context: IssuanceContext, event: E<'issuance.authorization_requested'>) => ({
    grant: 'authorization_code' as const,
    configurationIds: event.configuration_ids,
    clientId: event.client_id,
    expiresAt: event.expires_at ?? context.expiresAt,
    par: {
      clientId: event.client_id,
      redirectUri: event.redirect_uri,
      codeChallenge: event.code_challenge,
      authorizationDetails: event.authorization_details,
      state: event.state,
      dpopJkt: event.dpop_jkt,
      requestUriHash: event.request_uri_hash,
      requestExpiresAt: event.request_expires_at,
      attested: event.attested === true,
    },
  }),
  recordAuthorizationStarted: (_: IssuanceContext, event: E<'issuance.authorization_started'>) => ({
    loginInteractionId: event.interaction_id,
  }),
  recordCode: (_: IssuanceContext, event: E<'issuance.code_issued'>) => ({
    authCodeHash: event.code_hash,
    authCodeExpiresAt: event.code_expires_at,
    user: event.sub,
  }),
  recordDecline: () => ({ expiredReason: 'declined' }),
  recordToken: (_: IssuanceContext, event: E<'issuance.token_issued'>) => ({
    tokenHash: event.token_hash,
    tokenType: event.token_type,
    dpopJkt: event.dpop_jkt,
    clientId: event.client_id,
    scope: event.scope,
    attested: event.attested === true,
    challengeUsed: event.challenge_used === true,
  }),
  /** A code is spent once: its hash is forgotten with the token. */
  spendCode: () => ({ authCodeHash: undefined }),
  recordCredential: (context: IssuanceContext, event: E<'issuance.credential_issued'>) => ({
    credentials: [...context.credentials, ...issued(event.configuration_id, event.proof_count, event.statuses)],
    configurationId: event.configuration_id,
    proofCount: event.proof_count,
    holderJkts: event.holder_jkts,
    notificationIdHash: event.notification_id_hash,
    ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
    ...(event.key_attestation ? { keyAttestation: event.key_attestation } : {}),
    requestEncrypted: event.request_encrypted === true,
    responseEncrypted: event.response_encrypted === true,
  }),
  recordDeferral: (_: IssuanceContext, event: E<'issuance.deferred'>) => ({
    configurationId: event.configuration_id,
    proofCount: event.proof_count,
    holderJkts: event.holder_jkts,
    holderJwks: event.holder_jwks,
    transactionIdHash: event.transaction_id_hash,
    readyAt: event.ready_at,
  }),
  recordCollection: (context: IssuanceContext, event: E<'issuance.deferred_collected'>) => ({
    credentials: [
      ...context.credentials,
      ...issued(context.configurationId ?? '', context.proofCount ?? 0, event.statuses),
    ],
    notificationIdHash: event.notification_id_hash,
    transactionIdHash: undefined,
  }),
  recordNotification: (context: IssuanceContext, event: E<'issuance.notified'>) => ({
    notificationEvent: event.event,
    credentialAccepted: context.credentialAccepted === true || event.event === 'credential_accepted',
    ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
  }),
  recordStatusChange: (context: IssuanceContext, event: E<'credential.status_changed'>) => ({
    credentials: context.credentials.map((c, n) => (n === event.n ? { ...c, status: event.status } : c)),
  }),
  countNonceChallenge: (context: IssuanceContext) => ({ dpopNonceChallenges: context.dpopNonceChallenges + 1 }),
  recordCorrelation: (_: IssuanceContext, event: E<'issuance.correlated'>) => ({ walletExchange: event.stream }),
} satisfies Record<string, ContextUpdate<IssuanceContext>>;
