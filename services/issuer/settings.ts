import type { JWK } from 'jose';
import type { CertifiedKey } from '../credentials/mdoc/index.ts';

/** The issuer's mdoc PKI: IACA root and document signer (its `C` is the mDL's issuing country). */
export interface IssuerPki {
  iaca: CertifiedKey;
  documentSigner: CertifiedKey;
  /** ECDH-ES key wallets encrypt credential requests to (`kid` `req-enc-1`). */
  requestEncryption: { publicJwk: JWK; privateKey: CryptoKey };
  /** The demo wallet attester: its CA is a trust anchor of client and key attestations. */
  attester: { ca: CertifiedKey; clientAttester: CertifiedKey; keyAttester: CertifiedKey };
}

/** key_attestations_required of a HAIP configuration: levels the key attestation must assert (one of each listed). */
export interface KeyAttestationsRequired {
  key_storage?: string[];
  user_authentication?: string[];
}

export const ENC_VALUES = ['A128GCM', 'A256GCM'];

type ConfigurationFormat = 'mso_mdoc' | 'dc+sd-jwt' | 'jwt_vc_json' | 'jwt_vc_json-ld' | 'ldp_vc';
export const W3C_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const DEGREE_TYPES = ['VerifiableCredential', 'UniversityDegreeCredential'];

/** One credential configuration of the issuer (decisions section 8). */
export interface CredentialConfiguration {
  id: string;
  format: ConfigurationFormat;
  scope: string;
  /** mdoc doctype or SD-JWT VC vct; for W3C formats the last of the credential types. */
  type: string;
  proofAlgs: string[];
  /** HAIP configurations: client attestation and DPoP at PAR and token, key attestations in proofs. */
  haip?: { keyAttestationsRequired: KeyAttestationsRequired };
}

const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL';
export const MDL_NAMESPACE = 'org.iso.18013.5.1';
export const BATCH_SIZE = 2;
export const OFFER_TTL_S = 600;
export const TOKEN_TTL_S = 300;
export const NONCE_TTL_S = 300;
export const SD_JWT_TTL_S = 24 * 3600;
export const MDOC_TTL_S = 180 * 86_400;
export const ISSUING_COUNTRY = 'FR';

export interface IssuerSettings {
  base: string;
  /** `{base}/oid4vci`: credential issuer and its own authorization server. */
  issuer: string;
  configurations: ReadonlyMap<string, CredentialConfiguration>;
  dpopNonceRequired: boolean;
  /** OID4VCI_ENCRYPTION_REQUIRED: credential requests and responses must be encrypted. */
  encryptionRequired: boolean;
  /** OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM: attester roots besides the demo attester CA. */
  attestationTrustAnchorsPem: string[];
}

export const degreeVct = (base: string) => `${base}/oid4vci/credential-types/university-degree`;

/** What the issuer takes from the configuration. */
export interface IssuerOptions {
  dpopNonceRequired: boolean;
  encryptionRequired: boolean;
  attestationTrustAnchorsPem: string[];
}

export function issuerSettings(base: string, options: IssuerOptions): IssuerSettings {
  const configurations: CredentialConfiguration[] = [
    { id: 'MobileDrivingLicenceMsoMdoc', format: 'mso_mdoc', scope: 'vc:mdl', type: MDL_DOCTYPE, proofAlgs: ['ES256'] },
    {
      id: 'MobileDrivingLicenceMsoMdocHAIP',
      format: 'mso_mdoc',
      scope: 'vc:mdl_haip',
      type: MDL_DOCTYPE,
      proofAlgs: ['ES256'],
      haip: {
        keyAttestationsRequired: { key_storage: ['iso_18045_moderate'], user_authentication: ['iso_18045_moderate'] },
      },
    },
    {
      id: 'UniversityDegreeCredential',
      format: 'dc+sd-jwt',
      scope: 'vc:university_degree',
      type: degreeVct(base),
      proofAlgs: ['ES256', 'EdDSA'],
    },
    {
      id: 'UniversityDegreeCredentialHAIP',
      format: 'dc+sd-jwt',
      scope: 'vc:university_degree_haip',
      type: degreeVct(base),
      proofAlgs: ['ES256'],
      haip: { keyAttestationsRequired: {} },
    },
    {
      id: 'UniversityDegreeCredentialJWT',
      format: 'jwt_vc_json',
      scope: 'vc:university_degree_jwt',
      type: 'UniversityDegreeCredential',
      proofAlgs: ['ES256'],
    },
    {
      id: 'UniversityDegreeCredentialJWTLD',
      format: 'jwt_vc_json-ld',
      scope: 'vc:university_degree_jwtld',
      type: 'UniversityDegreeCredential',
      proofAlgs: ['ES256'],
    },
    {
      id: 'UniversityDegreeCredentialLDP',
      format: 'ldp_vc',
      scope: 'vc:university_degree_ldp',
      type: 'UniversityDegreeCredential',
      proofAlgs: ['ES256'],
    },
  ];
  return {
    base,
    issuer: `${base}/oid4vci`,
    configurations: new Map(configurations.map((c) => [c.id, c])),
    dpopNonceRequired: options.dpopNonceRequired,
    encryptionRequired: options.encryptionRequired,
    attestationTrustAnchorsPem: options.attestationTrustAnchorsPem,
  };
}

/** `/.well-known/openid-credential-issuer/oid4vci` (OpenID4VCI 1.0 §12.2). */
export function credentialIssuerMetadata(s: IssuerSettings, requestEncryptionJwk: JWK) {
  const configurations: Record<string, unknown> = {};
  for (const c of s.configurations.values()) {
    const proof = {
      proof_types_supported: {
        jwt: {
          proof_signing_alg_values_supported: c.proofAlgs,
          ...(c.haip ? { key_attestations_required: c.haip.keyAttestationsRequired } : {}),
        },
      },
    };
    configurations[c.id] = configurationMetadata(c, proof);
  }
  return {
    credential_issuer: s.issuer,
    authorization_servers: [s.issuer],
    // Decisions §8: both documents name the issuer's keys.
    jwks_uri: `${s.issuer}/.well-known/jwks.json`,
    credential_endpoint: `${s.issuer}/credential`,
    deferred_credential_endpoint: `${s.issuer}/deferred_credential`,
    nonce_endpoint: `${s.issuer}/nonce`,
    notification_endpoint: `${s.issuer}/notification`,
    batch_credential_issuance: { batch_size: BATCH_SIZE },
    credential_request_encryption: {
      jwks: { keys: [requestEncryptionJwk] },
      enc_values_supported: ENC_VALUES,
      encryption_required: s.encryptionRequired,
    },
    credential_response_encryption: {
      alg_values_supported: ['ECDH-ES'],
      enc_values_supported: ENC_VALUES,
      encryption_required: s.encryptionRequired,
    },
    display: [{ name: 'Portico demo issuer', locale: 'en-US' }],
    credential_configurations_supported: configurations,
  };
}

/** One entry of `credential_configurations_supported` (OpenID4VCI 1.0 §12.2.4 and Appendix A). */
function configurationMetadata(c: CredentialConfiguration, proof: Record<string, unknown>): Record<string, unknown> {
  const degree = { credential_metadata: { display: [{ name: 'University degree (demo)', locale: 'en-US' }] } };
  /** A W3C VC format (Appendix A.1-A.3): the credential definition and the signing algorithm differ. */
  const w3c = (credential_definition: Record<string, unknown>, signingAlg: string) => ({
    format: c.format,
    scope: c.scope,
    credential_definition,
    cryptographic_binding_methods_supported: ['did:jwk', 'did:key'],
    credential_signing_alg_values_supported: [signingAlg],
    ...proof,
    ...degree,
  });
  switch (c.format) {
    case 'mso_mdoc':
      return {
        format: c.format,
        scope: c.scope,
        doctype: c.type,
        cryptographic_binding_methods_supported: ['cose_key'],
        credential_signing_alg_values_supported: [-7],
        ...proof,
        credential_metadata: { display: [{ name: 'Mobile driving licence (demo)', locale: 'en-US' }] },
      };
    case 'dc+sd-jwt':
      return {
        format: c.format,
        scope: c.scope,
        vct: c.type,
        cryptographic_binding_methods_supported: ['jwk'],
        credential_signing_alg_values_supported: ['ES256'],
        ...proof,
        ...degree,
      };
    case 'jwt_vc_json':
      return w3c({ type: DEGREE_TYPES }, 'ES256');
    case 'jwt_vc_json-ld':
      return w3c({ '@context': [W3C_CONTEXT], type: DEGREE_TYPES }, 'ES256');
    case 'ldp_vc':
      return w3c({ '@context': [W3C_CONTEXT], type: DEGREE_TYPES }, 'ecdsa-rdfc-2019');
  }
}

/** `/.well-known/oauth-authorization-server/oid4vci` (RFC 8414), for the pre-authorized code grant. */
export function authorizationServerMetadata(s: IssuerSettings) {
  return {
    issuer: s.issuer,
    authorization_endpoint: `${s.issuer}/authorize`,
    token_endpoint: `${s.issuer}/token`,
    pushed_authorization_request_endpoint: `${s.issuer}/par`,
    require_pushed_authorization_requests: true,
    jwks_uri: `${s.issuer}/.well-known/jwks.json`,
    grant_types_supported: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'attest_jwt_client_auth'],
    challenge_endpoint: `${s.issuer}/challenge`,
    client_attestation_pop_signing_alg_values_supported: ['ES256'],
    client_attestation_signing_alg_values_supported: ['ES256'],
    authorization_details_types_supported: ['openid_credential'],
    authorization_response_iss_parameter_supported: true,
    dpop_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA'],
    'pre-authorized_grant_anonymous_access_supported': true,
    scopes_supported: [...s.configurations.values()].map((c) => c.scope),
  };
}
