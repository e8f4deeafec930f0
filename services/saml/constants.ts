import { CLOCK_SKEW_S } from '../crypto/time-claims.ts';

/** Names of SAML 2.0 (SAML core, bindings, metadata) and XML Signature and Encryption used here. */
export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
  xenc: 'http://www.w3.org/2001/04/xmlenc#',
} as const;

export const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

/** SAML core §3.2.2.2. */
export const STATUS = {
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  requester: 'urn:oasis:names:tc:SAML:2.0:status:Requester',
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  versionMismatch: 'urn:oasis:names:tc:SAML:2.0:status:VersionMismatch',
  authnFailed: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
  noAuthnContext: 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext',
  invalidNameIdPolicy: 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy',
  requestDenied: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
  partialLogout: 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
  unsupportedBinding: 'urn:oasis:names:tc:SAML:2.0:status:UnsupportedBinding',
  unknownPrincipal: 'urn:oasis:names:tc:SAML:2.0:status:UnknownPrincipal',
} as const;

/** SAML core §8.3. */
export const NAMEID = {
  email: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
} as const;
export const NAMEID_FORMATS: readonly string[] = [NAMEID.email, NAMEID.persistent, NAMEID.transient];

/** SAML authentication context classes (saml-authn-context-2.0-os §3.4), weakest first. */
export const AUTHN_CONTEXT = {
  password: 'urn:oasis:names:tc:SAML:2.0:ac:classes:Password',
  protectedPassword: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
  unspecified: 'urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified',
} as const;

export const ALG = {
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  excC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  enveloped: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  aes256Gcm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  rsaOaep: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
} as const;

/** The signature and digest algorithms accepted: RSA-SHA256 and SHA-256 only (no SHA-1, no HMAC). */
export const ACCEPTED_SIGNATURE_ALGS: readonly string[] = [ALG.rsaSha256];
export const ACCEPTED_DIGEST_ALGS: readonly string[] = [ALG.sha256];

/** The project's clock skew for message times: the same 15 s as for JWTs. */
export const CLOCK_SKEW_MS = CLOCK_SKEW_S * 1000;
/** How long an assertion's conditions and subject confirmation stay valid. */
export const ASSERTION_LIFETIME_MS = 5 * 60_000;

/** SAML core §3.2.1: the version every message carries. */
export const SAML_VERSION = '2.0';
