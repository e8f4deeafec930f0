/** The events and context of an `issuance:<offer_id>` stream (machines/issuance.ts folds them). */

type IssuanceGrant = 'pre-authorized_code' | 'authorization_code';

export type IssuanceEvent =
  | {
      type: 'issuance.offered';
      at: number;
      grant: IssuanceGrant;
      configuration_ids: string[];
      code_hash?: string;
      tx_code_hash?: string;
      /** authorization_code offers: the issuer_state the wallet sends back at PAR. */
      issuer_state_hash?: string;
      expires_at: number;
      by_value: boolean;
      user: string;
      /** Credentials of this offer are issued deferred (202, then the deferred endpoint). */
      deferred?: boolean;
      /** The hash of the offer creator's status token: the capability to change its credentials' status. */
      status_token_hash?: string;
    }
  | { type: 'issuance.offer_fetched'; at: number }
  /** A pushed authorization request (RFC 9126) for this issuance: wallet-initiated (from `new`) or with the offer's issuer_state. */
  | {
      type: 'issuance.authorization_requested';
      at: number;
      client_id: string;
      redirect_uri: string;
      code_challenge: string;
      configuration_ids: string[];
      authorization_details: boolean;
      state?: string;
      dpop_jkt?: string;
      request_uri_hash: string;
      request_expires_at: number;
      /** The client authenticated with a client attestation at PAR. */
      attested?: boolean;
      /** For a wallet-initiated issuance: until when a token may be issued. */
      expires_at?: number;
    }
  /** The request_uri was used at the authorization endpoint (single use): the person signs in and consents. */
  | { type: 'issuance.authorization_started'; at: number; interaction_id: string }
  | { type: 'issuance.code_issued'; at: number; code_hash: string; sub: string; code_expires_at: number }
  | { type: 'issuance.authorization_declined'; at: number }
  | { type: 'issuance.tx_code_rejected'; at: number }
  | {
      type: 'issuance.token_issued';
      at: number;
      token_hash: string;
      token_type: 'Bearer' | 'DPoP';
      dpop_jkt?: string;
      client_id?: string;
      scope: string;
      attested?: boolean;
      challenge_used?: boolean;
    }
  | {
      type: 'issuance.credential_issued';
      at: number;
      configuration_id: string;
      proof_count: number;
      holder_jkts: string[];
      notification_id_hash: string;
      interaction_id?: string;
      key_attestation?: { key_storage: string[]; user_authentication: string[] };
      request_encrypted?: boolean;
      response_encrypted?: boolean;
      /** Each credential's status slot, in the order of the credentials (absent before credential status existed). */
      statuses?: StatusSlotRecord[];
      /** The wallet sent the drafts' singular `proof` (accepted as one-element `proofs`). */
      draft_proof?: boolean;
    }
  | {
      type: 'issuance.notified';
      at: number;
      event: 'credential_accepted' | 'credential_failure' | 'credential_deleted';
      interaction_id?: string;
    }
  /** A credential request accepted for later: the proven holder keys are public and kept to issue at collection. */
  | {
      type: 'issuance.deferred';
      at: number;
      configuration_id: string;
      proof_count: number;
      holder_jkts: string[];
      holder_jwks: Record<string, unknown>[];
      transaction_id_hash: string;
      ready_at: number;
      /** The wallet sent the drafts' singular `proof` (accepted as one-element `proofs`). */
      draft_proof?: boolean;
    }
  | { type: 'issuance.deferred_collected'; at: number; notification_id_hash: string; statuses?: StatusSlotRecord[] }
  /** The issuer changed one issued credential's status (POST /oid4vci/offers/{id}/credentials/{n}/status). */
  | {
      type: 'credential.status_changed';
      at: number;
      /** The credential's position among those issued under the offer, from 0. */
      n: number;
      status: CredentialStatusName;
      /** Its Token Status List value (0 VALID, 1 INVALID, 2 SUSPENDED). */
      value: number;
      list_id: string;
      idx: number;
    }
  | { type: 'issuance.expired'; at: number; reason: 'lapsed' | 'tx_code_burned' | 'code_expired' }
  /** A DPoP nonce challenge (use_dpop_nonce) was answered to this issuance's wallet, by the AS or the RS. */
  | { type: 'issuance.nonce_challenged'; at: number; side: 'as' | 'rs' }
  /** The wallet exchange that took part, by its stream id (never a secret); recorded once. */
  | { type: 'issuance.correlated'; at: number; stream: string };

export type CredentialStatusName = 'valid' | 'suspended' | 'revoked';

/** Where a credential's status lives: a list and an index in it. */
export interface StatusSlotRecord {
  list_id: string;
  idx: number;
}

/** One credential issued under the offer. */
export interface IssuedCredentialRecord {
  configurationId: string;
  status: CredentialStatusName;
  /** Absent for credentials issued before credential status existed. */
  listId?: string;
  idx?: number;
}

export interface IssuanceContext {
  /** Every credential issued, in order (n is the position). */
  credentials: IssuedCredentialRecord[];
  grant?: IssuanceGrant;
  /** The wallet's exchange stream (`wallet-exchange:<id>`) that took part, when it said so. */
  walletExchange?: string;
  configurationIds: string[];
  codeHash?: string;
  txCodeHash?: string;
  issuerStateHash?: string;
  /** Hash of the status token given to the offer's creator (absent: nobody may change status). */
  statusTokenHash?: string;
  txCodeFailures: number;
  expiresAt: number;
  user?: string;
  offerFetched: boolean;
  tokenHash?: string;
  tokenType?: 'Bearer' | 'DPoP';
  dpopJkt?: string;
  clientId?: string;
  scope?: string;
  configurationId?: string;
  proofCount?: number;
  holderJkts: string[];
  notificationIdHash?: string;
  notificationEvent?: string;
  /** The wallet said `credential_accepted` at some point: a later `credential_failure` is refused. */
  credentialAccepted?: boolean;
  interactionId?: string;
  expiredReason?: string;
  attested?: boolean;
  challengeUsed?: boolean;
  keyAttestation?: { key_storage: string[]; user_authentication: string[] };
  dpopNonceChallenges: number;
  requestEncrypted?: boolean;
  responseEncrypted?: boolean;
  deferred: boolean;
  transactionIdHash?: string;
  readyAt?: number;
  holderJwks: Record<string, unknown>[];
  /** Authorization code flow (PAR, authorize, code). */
  par?: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    authorizationDetails: boolean;
    state?: string;
    dpopJkt?: string;
    requestUriHash: string;
    requestExpiresAt: number;
    attested: boolean;
  };
  /** The login/consent interaction of the authorization endpoint. */
  loginInteractionId?: string;
  authCodeHash?: string;
  authCodeExpiresAt?: number;
}
