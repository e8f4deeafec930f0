/** The events and context of the presentation machine (presentation.ts), by themselves. */
export type ClientIdPrefix =
  'redirect_uri' | 'x509_san_dns' | 'x509_hash' | 'verifier_attestation' | 'decentralized_identifier';
export type ResponseMode = 'direct_post' | 'direct_post.jwt' | 'dc_api' | 'dc_api.jwt';

export interface PresentationReason {
  credential_query_id?: string;
  check: string;
  reason: string;
}

/** One check the verifier ran, passed or failed: a result lists every one, not only the failures. */
export interface PresentationCheck {
  credential_query_id?: string;
  /** Which presentation of that query (0-based), when the check is of one presentation. */
  presentation?: number;
  check: string;
  verdict: 'passed' | 'failed';
}

export interface DisclosedPresentation {
  format: string;
  issuer: string;
  claims: unknown;
  /** The credential's status, per reference, when it has any (docs/status.md). */
  status?: CredentialStatusView[];
}

/** One status reference of a presented credential and what its list said. */
export interface CredentialStatusView {
  type: string;
  idx: number;
  uri?: string;
  status_purpose?: string;
  status_list_credential?: string;
  /** VALID, INVALID, SUSPENDED… when the list could be read. */
  status?: string;
  /** The check that failed: credential_revoked, credential_suspended or status_unavailable. */
  failed?: string;
  cached: boolean;
  resolved_at: string;
}

export type PresentationEvent =
  | {
      type: 'presentation.created';
      at: number;
      /** Absent for an unsigned Digital Credentials API request (OpenID4VP 1.0 Appendix A.2: no client_id). */
      client_id?: string;
      client_id_prefix?: ClientIdPrefix;
      response_mode: ResponseMode;
      /** How the request object is fetched; absent for by-value requests. */
      request_uri_method?: 'get' | 'post';
      nonce: string;
      state_hash: string;
      /** SHA-256 of the transaction id the result is read by (128 random bits; never in the request URI or object). */
      transaction_id_hash?: string;
      dcql_query: unknown;
      /** OpenID4VP 1.0 §5.1: the transaction data entries as sent (base64url strings; not secret). */
      transaction_data?: string[];
      /** Digital Credentials API requests: the origins the answer may come through (Appendix A.2). */
      expected_origins?: string[];
      expires_at: number;
      profile?: 'haip';
      /** direct_post.jwt: the content encryptions offered and the verifier's ephemeral public key (the private half stays in memory). */
      enc_values?: string[];
      enc_jwk?: Record<string, unknown>;
    }
  | { type: 'presentation.request_fetched'; at: number; method: 'get' | 'post'; wallet_nonce?: string }
  | {
      type: 'presentation.response_received';
      at: number;
      enc: string | null;
      /** Digital Credentials API: the origin the browser reported with the answer (Appendix A.4). */
      origin?: string;
    }
  | {
      type: 'presentation.verified';
      at: number;
      presentations: Record<string, DisclosedPresentation[]>;
      checks?: PresentationCheck[];
      response_code_hash?: string;
    }
  | {
      type: 'presentation.rejected';
      at: number;
      reasons: PresentationReason[];
      checks?: PresentationCheck[];
      presentations?: Record<string, DisclosedPresentation[]>;
      response_code_hash?: string;
    }
  | { type: 'presentation.wallet_error'; at: number; error: string; error_description?: string }
  | { type: 'presentation.expired'; at: number }
  /** The wallet exchange that took part, by its stream id (never a secret); recorded once. */
  | { type: 'presentation.correlated'; at: number; stream: string };

export interface PresentationContext {
  clientId?: string;
  prefix?: ClientIdPrefix;
  responseMode: ResponseMode;
  requestUriMethod?: 'get' | 'post';
  nonce: string;
  stateHash: string;
  transactionIdHash?: string;
  dcqlQuery: unknown;
  transactionData?: string[];
  expectedOrigins?: string[];
  expiresAt: number;
  profile?: 'haip';
  encValues?: string[];
  encJwk?: Record<string, unknown>;
  fetches: number;
  walletNonce?: string;
  enc?: string | null;
  /** The origin a Digital Credentials API answer came through. */
  origin?: string;
  /** The wallet's exchange stream (`wallet-exchange:<id>`) that took part, when it said so. */
  walletExchange?: string;
  reasons: PresentationReason[];
  /** Every check run on the answer, in order (events written before checks were recorded have none). */
  checks?: PresentationCheck[];
  presentations?: Record<string, DisclosedPresentation[]>;
  responseCodeHash?: string;
  walletError?: { error: string; error_description?: string };
}
