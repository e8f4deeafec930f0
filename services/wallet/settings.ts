import type { JWK } from 'jose';

type WalletCredentialFormat = 'mso_mdoc' | 'dc+sd-jwt' | 'jwt_vc_json' | 'jwt_vc_json-ld' | 'ldp_vc';
export type WalletDidMethod = 'key' | 'jwk' | 'web';
export type WalletSigningAlg = 'ES256' | 'EdDSA' | 'RS256';

/** Everything the wallet harness reads from its WALLET_* variables, checked at start. */
export interface WalletSettings {
  /** The wallet origin as clients see it. */
  walletUrl: string;
  /** Verifier/issuer service for OID4VP submissions and the default OID4VCI target. */
  targetBaseUrl: string;
  /** Issuer base of `/api/issue` (defaults to the target). */
  issuerBaseUrl: string;
  allowedCorsOrigins: string[];
  /** Labels wallet key material (`wallet_subject_label`); never an issuer identity record. */
  defaultSubject: string;
  defaultCredentialFormat: WalletCredentialFormat;
  didMethod: WalletDidMethod;
  defaultSigningAlg: WalletSigningAlg;
  sessionTtlMs: number;
  strictSessionIsolation: boolean;
  allowExternalVerifiers: boolean;
  trustedVerifierAttestationIssuers: string[];
  /** Where the persistent mdoc device key lives; unset: one ephemeral key per process. */
  deviceKeyPath?: string;
  /** Extra roots for x509_san_dns / x509_hash request objects (system roots also apply). */
  verifierTrustAnchorsPem: string[];
  /** IACA roots for IssuerAuth checks before an mdoc is stored. */
  mdocIacaRootsPem: string[];
  clientAttestationAttesterJwk?: JWK;
  keyAttestationJwk?: JWK;
  /** Both attester JWKs loaded: HAIP issuance is on. */
  haipEnabled: boolean;
  attestedClientId: string;
  clientAttestationIssuer: string;
  keyAttestationKeyStorage: string[];
  keyAttestationUserAuthentication: string[];
  /** Host name overrides that precede DNS in the outbound guard (a test hook). */
  dnsOverrides: Map<string, string[]>;
}

/** Origins the wallet trusts without the external-destination rules: its target and its issuer. */
export const trustedOrigins = (settings: Pick<WalletSettings, 'targetBaseUrl' | 'issuerBaseUrl'>) =>
  new Set([new URL(settings.targetBaseUrl).origin, new URL(settings.issuerBaseUrl).origin]);
