import type { JWK } from 'jose';
import type { CertifiedKey } from '../credentials/mdoc/pki-generate.ts';
import type { DcqlQuery } from '../credentials/dcql/types.ts';
import type { ClientIdPrefix, ResponseMode } from '../../machines/presentation.ts';

/** Decisions section 9: a presentation request lives 300 s. */
export const REQUEST_TTL_S = 300;
/** The audience of every request object (OpenID4VP 1.0 §5.8, static discovery). */
export const SELF_ISSUED_AUDIENCE = 'https://self-issued.me/v2';
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';
export const VERIFIER_ATTESTATION_TYP = 'verifier-attestation+jwt';
export const CLIENT_ID_PREFIXES: readonly ClientIdPrefix[] = [
  'redirect_uri',
  'x509_san_dns',
  'x509_hash',
  'verifier_attestation',
  'decentralized_identifier',
];
export const RESPONSE_MODES: readonly ResponseMode[] = ['direct_post', 'direct_post.jwt', 'dc_api', 'dc_api.jwt'];
export const CONTENT_ENCRYPTIONS = ['A128GCM', 'A256GCM'] as const;
const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL';

/** The query asked when the creator names none: the mDL's family_name and document_number. */
export const DEFAULT_DCQL_QUERY: DcqlQuery = {
  credentials: [
    {
      id: 'mdl',
      format: 'mso_mdoc',
      meta: { doctype_value: MDL_DOCTYPE },
      claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }, { path: ['org.iso.18013.5.1', 'document_number'] }],
    },
  ],
};

/**
 * What the verifier supports, as `client_metadata.vp_formats_supported`: only the format identifiers
 * OpenID4VP 1.0 Appendix B defines (strict wallets refuse a request naming any other).
 */
export const VP_FORMATS_SUPPORTED = {
  'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256', 'ES384', 'EdDSA'], 'kb-jwt_alg_values': ['ES256', 'ES384', 'EdDSA'] },
  mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
  jwt_vc_json: { alg_values: ['ES256', 'EdDSA'] },
  ldp_vc: { proof_type_values: ['DataIntegrityProof'], cryptosuite_values: ['ecdsa-rdfc-2019', 'eddsa-rdfc-2022'] },
};

/** The verifier's X.509 material (`$DATA_DIR/oid4vp/x509.json`): a CA and a leaf whose SAN is the BASE_URL host. */
export interface VerifierPki {
  ca: CertifiedKey;
  leaf: CertifiedKey;
}

/** Whom the verifier trusts for credentials: our issuer (its JWKS and IACA) plus MDOC_IACA_ROOT_PEM. */
export interface CredentialTrust {
  /** The issuer identifier SD-JWT VCs must carry. */
  issuer: string;
  /** The issuer's signing keys as its jwks_uri serves them (a new object after a rotation). */
  jwks: () => { keys: JWK[] };
  /** DIDs our issuer signs W3C credentials as. */
  w3cIssuers: () => string[];
  /** Trusted mdoc IACA roots, PEM. */
  iacaRoots: string[];
}

export interface VerifierSettings {
  baseUrl: string;
  /** `{base}/oid4vp/response`. */
  responseUri: string;
  /** `{base}/oid4vp/verifier-attestation`. */
  attestationIssuer: string;
}

export const verifierSettings = (baseUrl: string): VerifierSettings => ({
  baseUrl,
  responseUri: `${baseUrl}/oid4vp/response`,
  attestationIssuer: `${baseUrl}/oid4vp/verifier-attestation`,
});
